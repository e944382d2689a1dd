import Foundation
import TrailMapTestSupport

/// Patch files as a malicious server would write them, with the real `sqlite3` shell: any
/// schema, any header.
enum CraftedPatch {
    struct Failure: Error, CustomStringConvertible { let description: String }

    /// Runs `sql` (several statements) on the SQLite file at `path` with `sqlite3 -bail`.
    static func sqlite(_ path: String, _ sql: String) throws {
        let p = ChildProcess()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        p.arguments = ["-bail", path]
        let input = Pipe(), errors = Pipe()
        p.standardInput = input
        p.standardError = errors
        p.standardOutput = FileHandle.nullDevice
        try p.run()
        input.fileHandleForWriting.write(Data(sql.utf8))
        try input.fileHandleForWriting.close()
        let message = errors.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else { throw Failure(description: "sqlite3: \(String(decoding: message, as: UTF8.self))") }
    }

    /// Writes a patch from content `from` to content `to` (versions 1 to 2) whose `put` is made
    /// by `put` (a CREATE TABLE or CREATE VIEW statement named `put`); `del`, `meta_put` and
    /// `meta_del` are empty tables.
    static func write(to path: String, from: String, to: String, put: String) throws {
        try? FileManager.default.removeItem(atPath: path)
        try sqlite(
            path,
            """
            CREATE TABLE patch (name TEXT PRIMARY KEY, value TEXT NOT NULL);
            INSERT INTO patch VALUES ('format', 'trailmap-patch-1'), ('from_version', '1'), ('to_version', '2'),
                                     ('from_content', '\(from)'), ('to_content', '\(to)');
            \(put);
            CREATE TABLE del (zoom_level INTEGER, tile_column INTEGER, tile_row INTEGER, PRIMARY KEY (zoom_level, tile_column, tile_row));
            CREATE TABLE meta_put (name TEXT PRIMARY KEY, value TEXT);
            CREATE TABLE meta_del (name TEXT PRIMARY KEY);
            """)
    }

    /// A recursive view of `rows` distinct tiles of `bytes` each at zoom 12 (TMS row 0): a patch
    /// file of a few KB that yields as many rows as its author likes.
    static func bombView(rows: Int, bytes: Int = 8192) -> String {
        "CREATE VIEW put AS \(rowsSelect(rows, bytes))"
    }

    /// The same rows in a real `put` table (a patch file as large as its tiles).
    static func realPut(rows: Int, bytes: Int) -> String {
        "\(emptyPut); INSERT INTO put \(rowsSelect(rows, bytes))"
    }

    static func rowsSelect(_ rows: Int, _ bytes: Int) -> String {
        """
        WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < \(rows - 1))
            SELECT 12 AS zoom_level, i AS tile_column, 0 AS tile_row, CAST(printf('%.\(bytes)d', i) AS BLOB) AS tile_data FROM n
        """
    }

    /// The same rows added to a bundle (TrailMap layout) directly: what applying such a patch makes of it.
    static func addRows(_ rows: Int, bytes: Int = 8192, to bundle: String) throws {
        try sqlite(
            bundle,
            """
            WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < \(rows - 1))
              INSERT INTO images (tile_id, tile_data) SELECT 'row-' || i, CAST(printf('%.\(bytes)d', i) AS BLOB) FROM n;
            WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < \(rows - 1))
              INSERT INTO map (zoom_level, tile_column, tile_row, tile_id) SELECT 12, i, 0, 'row-' || i FROM n;
            """)
    }

    /// A `put` that is a real, empty table, as a patch has.
    static let emptyPut =
        """
        CREATE TABLE put (zoom_level INTEGER, tile_column INTEGER, tile_row INTEGER, tile_data BLOB NOT NULL, PRIMARY KEY (zoom_level, \
        tile_column, tile_row))
        """
}
