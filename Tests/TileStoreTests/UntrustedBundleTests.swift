import Foundation
import GRDB
import Testing
import TileGeometry
@testable import TileStore
import TrailMapTestSupport

/// Hardening, finding 11 (lows): bundles are untrusted input, opened with `trusted_schema = OFF`
/// so that their views and triggers cannot call functions with side effects.
@Suite struct UntrustedBundleTests {
    let dir = TemporaryDirectory()

    func bundle() throws -> String {
        let path = dir.file("b.mbtiles")
        try DatabaseQueue(path: path).write { db in
            try db.execute(sql: """
                CREATE TABLE metadata (name TEXT, value TEXT);
                CREATE TABLE tiles (zoom_level INTEGER, tile_column INTEGER, tile_row INTEGER, tile_data BLOB);
                INSERT INTO metadata VALUES ('name', 'b'), ('format', 'png');
                INSERT INTO tiles VALUES (0, 0, 0, x'0102');
                """)
        }
        return path
    }

    @Test func finding11_readersOpenBundlesWithAnUntrustedSchema() throws {
        let path = try bundle()
        #expect(try BundleReader(path: path).trustedSchema() == 0)
        let pool = try TileReadPool(path: path, layout: .plain)
        let connection = try pool.checkout()
        defer { pool.checkin(connection) }
        #expect(connection.trustedSchema() == 0)
    }
}
