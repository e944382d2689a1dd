import Foundation
import TileCache
import TileGeometry
import TileStore
import TrailMapTestSupport

/// A tile of `size` bytes for key-only tests.
func sampleTile(_ size: Int, tag: String = "t") -> CachedTile {
    CachedTile(bytes: [UInt8](repeating: 7, count: size), etag: "\"\(tag)\"")
}

func key(_ x: Int, bundle: UInt32 = 1, z: Int = 10) -> TileKey {
    TileKey(bundle: bundle, tile: TileID(z: z, x: x, y: 0)!)
}

/// Writes a small bundle (zoom 3, 8 tiles of arbitrary bytes) and returns its path.
func writeBundle(in dir: TemporaryDirectory, name: String) throws -> String {
    try TestBundle.write(
        (0..<8).map { x in (tile: TileID(z: 3, x: x, y: 1)!, data: [UInt8](repeating: UInt8(x), count: 100 + x)) },
        to: dir.file("\(name).mbtiles"), metadata: BundleMetadata(name: name, bounds: .world, minZoom: 3, maxZoom: 3))
}
