import Foundation
import GRDB
import Testing
import TileGeometry
@testable import TileStore
import TrailMapTestSupport

/// Hardening, finding 11 (lows): bundles are untrusted input, opened with `trusted_schema = OFF`
/// so that their views and triggers cannot call functions with side effects.
@Suite(.computeThreads) struct UntrustedBundleTests {
    let dir = TemporaryDirectory()

    func bundle() throws -> String {
        let path = dir.file("b.mbtiles")
        try DatabaseQueue(path: path).write { db in
            try db.execute(
                sql: """
                    CREATE TABLE metadata (name TEXT, value TEXT);
                    CREATE TABLE tiles (zoom_level INTEGER, tile_column INTEGER, tile_row INTEGER, tile_data BLOB);
                    INSERT INTO metadata VALUES ('name', 'b'), ('format', 'png');
                    INSERT INTO tiles VALUES (0, 0, 0, x'0102');
                    """)
        }
        return path
    }

    /// NULL or text where numbers belong (found by the patch tests' corruption cases): the rows
    /// are reported or left out, never a crash.
    @Test func nullsAndTextInAddressColumnsAreProblemsNotCrashes() throws {
        let path = try bundle()
        try DatabaseQueue(path: path).write { db in
            try db.execute(
                sql: """
                    INSERT INTO metadata VALUES (NULL, NULL), ('description', NULL);
                    INSERT INTO tiles VALUES (NULL, 0, 0, x'00'), (1, NULL, 0, x'00'), ('abc', 1, 1, x'00'),
                      (2, 'x', 0, NULL), (1, 0, 0, NULL);
                    """)
        }
        let reader = try BundleReader(path: path)
        #expect(try reader.metadataPairs() == ["name": "b", "format": "png", "description": ""])
        #expect(try reader.zoomLevels().map(\.zoom) == [0, 1])
        var invalid = 0, valid = 0
        try reader.forEachTile(invalid: { _, _, _ in invalid += 1 }) { _, _ in
            valid += 1
            return true
        }
        #expect(invalid == 4 && valid == 2)
    }

    // Hardening finding 11 (docs/notes/hardening.md).
    @Test func readersOpenBundlesWithAnUntrustedSchema() throws {
        let path = try bundle()
        #expect(try BundleReader(path: path).trustedSchema() == 0)
        let pool = try TileReadPool(path: path, layout: .plain)
        let connection = try pool.checkout()
        defer { pool.checkin(connection) }
        #expect(connection.trustedSchema() == 0)
    }
}
