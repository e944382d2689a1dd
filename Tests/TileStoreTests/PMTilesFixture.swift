import Foundation
import TileGeometry
import TileStore
import TrailMapTestSupport

/// Bundles for the PMTiles export and reader tests.
enum PMTilesFixture {
    /// The conterminous US: zooms to 11 over it give ~115,000 tiles, enough for leaf directories.
    static let large = GeoBounds(west: -125, south: 25, east: -66, north: 49)
    static let small = GeoBounds(west: -110, south: 36, east: -101, north: 42)

    /// A bundle of `zooms` over `box` at `path`, with many identical tiles (every third column:
    /// runs and duplicates) and tile lengths that vary like real tiles'; returns its tiles.
    static func bundle(at path: String, zooms: ClosedRange<Int>, box: GeoBounds) throws -> (String, [TileID: [UInt8]]) {
        var tiles = [TileID: [UInt8]]()
        for z in zooms {
            for t in TileRange(bounds: box, zoom: z) {
                // Every third column identical (deduplicated), the rest distinct.
                // Lengths that vary like real tiles' (directories compress as they would).
                let n = 5 + (t.x &* 7919 &+ t.y &* 104_729 &+ z) % 61
                tiles[t] =
                    t.x % 3 == 0
                    ? [9, 9, 9, UInt8(z)]
                    : [UInt8(z), UInt8(t.x & 255), UInt8(t.y & 255), UInt8((t.x >> 8) & 255)] + [UInt8](repeating: 1, count: n)
            }
        }
        var meta = BundleMetadata(name: "PM", bounds: box, minZoom: zooms.lowerBound, maxZoom: zooms.upperBound)
        meta.format = "png"
        try TestBundle.write(tiles, to: path, metadata: meta)
        return (path, tiles)
    }
}
