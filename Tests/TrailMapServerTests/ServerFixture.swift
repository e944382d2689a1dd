import CZlib
import Foundation
import GRDB
import Raster
import TileGeometry
import TileStore
import TrailMapTestSupport

/// Bundles in a temporary tiles folder for server tests.
struct ServerFixture {
    let dir = TemporaryDirectory()
    static let box = GeoBounds(west: -110, south: 36, east: -101, north: 42)

    /// A distinct tile image per address (so ETags differ).
    static func png(_ t: TileID, shade: UInt8 = 0) throws -> [UInt8] {
        var image = RGBAImage(width: 256, height: 256, fill: (UInt8(t.z * 20), UInt8(t.x % 256), UInt8(t.y % 256), 255))
        image.pixels[0] = shade
        return try PNGEncoder.encode(image)
    }

    /// Writes `NAME.mbtiles` (TrailMap layout) with every tile of the box at zooms 2...4 except `missing`,
    /// recording `layers` as its levels of detail.
    @discardableResult
    func bundle(
        _ name: String, shade: UInt8 = 0, missing: TileID? = nil, into folder: String? = nil,
        layers: [BundleLayer] = []
    ) throws -> String {
        let path = ((folder ?? dir.path) as NSString).appendingPathComponent("\(name).mbtiles")
        let staging = dir.file(".staging-\(UUID().uuidString).mbtiles")
        var batch = [(tile: TileID, data: [UInt8])]()
        for z in 2...4 {
            for t in TileRange(bounds: Self.box, zoom: z) where t != missing {
                batch.append((t, try Self.png(t, shade: shade)))
            }
        }
        var meta = BundleMetadata(name: "Bundle \(name)", bounds: Self.box, minZoom: 2, maxZoom: 4)
        meta.attribution = "test data"
        meta.extra["trailmap:builder"] = "test"
        if !layers.isEmpty { meta.extra[BundleLayer.metadataKey] = BundleLayer.encode(layers) }
        try TestBundle.write(batch, to: staging, metadata: meta)
        // Rename into place, as a real publish would.
        guard rename(staging, path) == 0 else { throw CocoaError(.fileWriteUnknown) }
        return path
    }

    /// A bundle in the plain layout other tools write, without trailmap metadata.
    func plainBundle(_ name: String) throws -> String {
        let path = dir.file("\(name).mbtiles")
        let db = try DatabaseQueue(path: path)
        let tile = try Self.png(TileID(z: 1, x: 0, y: 0)!)
        try db.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE metadata (name TEXT, value TEXT);
                    CREATE TABLE tiles (zoom_level INTEGER, tile_column INTEGER, tile_row INTEGER, tile_data BLOB);
                    CREATE UNIQUE INDEX tile_index ON tiles (zoom_level, tile_column, tile_row);
                    INSERT INTO metadata VALUES ('name', 'Plain'), ('format', 'png');
                    """)
            try db.execute(sql: "INSERT INTO tiles VALUES (1, 0, 1, ?)", arguments: [Data(tile)])
        }
        return path
    }
}

/// gunzip for checking compressed responses.
func gunzip(_ data: [UInt8]) -> [UInt8]? {
    var stream = z_stream()
    guard inflateInit2_(&stream, 15 + 16, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else { return nil }
    defer { inflateEnd(&stream) }
    var out = [UInt8](repeating: 0, count: 1 << 20)
    let status = data.withUnsafeBufferPointer { inp in
        out.withUnsafeMutableBufferPointer { o -> Int32 in
            stream.next_in = UnsafeMutablePointer(mutating: inp.baseAddress)
            stream.avail_in = UInt32(inp.count)
            stream.next_out = o.baseAddress
            stream.avail_out = UInt32(o.count)
            return inflate(&stream, Z_FINISH)
        }
    }
    guard status == Z_STREAM_END else { return nil }
    return Array(out.prefix(Int(stream.total_out)))
}
