import Foundation
import GRDB
import Testing
import TileGeometry
import TileStore
import TrailMapTestSupport

@Suite(.computeThreads) struct BundleReaderTests {
    let dir = TemporaryDirectory()

    /// A bundle in the plain layout other tools write (one `tiles` table).
    func makePlainBundle() throws -> String {
        let path = dir.file("plain.mbtiles")
        let db = try DatabaseQueue(path: path)
        try db.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE metadata (name TEXT, value TEXT);
                    CREATE TABLE tiles (zoom_level INTEGER, tile_column INTEGER, tile_row INTEGER, tile_data BLOB);
                    INSERT INTO metadata VALUES ('name', 'plain'), ('format', 'png'), ('bounds', '-180,-85,180,85'),
                        ('minzoom', '0'), ('maxzoom', '1');
                    INSERT INTO tiles VALUES (0, 0, 0, x'0102'), (1, 1, 0, x'03'), (1, 0, 1, x'04');
                    """)
        }
        return path
    }

    @Test func readsThePlainLayout() throws {
        let reader = try BundleReader(path: try makePlainBundle())
        #expect(reader.layout == .plain)
        #expect(try reader.tile(TileID(z: 0, x: 0, y: 0)!) == Data([1, 2]))
        // TMS row 0 at zoom 1 is XYZ row 1.
        #expect(try reader.tile(TileID(z: 1, x: 1, y: 1)!) == Data([3]))
        #expect(try reader.storedImages().count == 3)
        var seen = [TileID]()
        try reader.forEachTile { t, _ in
            seen.append(t); return true
        }
        #expect(Set(seen) == [TileID(z: 0, x: 0, y: 0)!, TileID(z: 1, x: 1, y: 1)!, TileID(z: 1, x: 0, y: 0)!])
    }

    @Test func refusesFilesThatAreNotBundles() throws {
        #expect(throws: TileStoreError.notFound(path: dir.file("none.mbtiles"))) { try BundleReader(path: dir.file("none.mbtiles")) }
        let text = dir.file("text.mbtiles")
        try Data(repeating: 65, count: 4096).write(to: URL(fileURLWithPath: text))
        #expect { try BundleReader(path: text) } throws: { e in
            if case .notMBTiles = e as? TileStoreError { return true } else { return false }
        }
        let empty = dir.file("other.sqlite")
        let db = try DatabaseQueue(path: empty)
        try db.write { try $0.execute(sql: "CREATE TABLE t (a)") }
        #expect { try BundleReader(path: empty) } throws: { e in
            if case let .notMBTiles(_, reason) = e as? TileStoreError { return reason.contains("tiles") } else { return false }
        }
    }
}
