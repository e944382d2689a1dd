import Foundation
import GRDB
import TileGeometry

/// How a bundle stores its tiles.
public enum BundleLayout: String, Sendable {
    /// `images` + `map` tables behind a `tiles` view (TrailMap, mbutil's compact mode).
    case deduplicated
    /// A plain `tiles` table (GDAL, mbutil's default).
    case plain
}

/// Tile counts and sizes of one zoom level.
public struct ZoomLevelSummary: Sendable, Equatable {
    public var zoom: Int
    public var tiles: Int
    public var bytes: Int
    public var minX: Int
    public var maxX: Int
    /// XYZ rows (counted from the north).
    public var minY: Int
    public var maxY: Int
}

/// Read-only access to an MBTiles file, in either layout.
public final class BundleReader: Sendable {
    public let path: String
    public let layout: BundleLayout
    private let db: DatabaseQueue

    /// `PRAGMA trusted_schema` of the reader's connection (0: off).
    func trustedSchema() throws -> Int {
        try db.read { try Int.fetchOne($0, sql: "PRAGMA trusted_schema") ?? -1 }
    }

    /// Opens a bundle read-only; it must have `metadata` and `tiles`.
    public init(path: String) throws(TileStoreError) {
        guard FileManager.default.fileExists(atPath: path) else { throw .notFound(path: path) }
        self.path = path
        do {
            var config = Configuration()
            config.readonly = true
            // A bundle is untrusted input: its schema (views, triggers) may not call functions with side effects.
            config.prepareDatabase { try $0.execute(sql: "PRAGMA trusted_schema = OFF") }
            db = try DatabaseQueue(path: path, configuration: config)
            let names = try db.read { db in
                try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type IN ('table', 'view')")
            }
            let set = Set(names.map { $0.lowercased() })
            guard set.contains("tiles") else { throw TileStoreError.notMBTiles(path: path, reason: "no tiles table") }
            guard set.contains("metadata") else { throw TileStoreError.notMBTiles(path: path, reason: "no metadata table") }
            layout = set.contains("images") && set.contains("map") ? .deduplicated : .plain
        } catch let error as TileStoreError {
            throw error
        } catch let error as DatabaseError where error.resultCode == .SQLITE_NOTADB {
            throw .notMBTiles(path: path, reason: "not an SQLite database")
        } catch {
            throw .notMBTiles(path: path, reason: "\(error)")
        }
    }

    func read<T>(_ body: (Database) throws -> T) throws(TileStoreError) -> T {
        do { return try db.read(body) } catch { throw .sqlite(path: path, message: "\(error)") }
    }

    /// All metadata rows.
    public func metadataPairs() throws(TileStoreError) -> [String: String] {
        try read { db in
            var out = [String: String]()
            for row in try Row.fetchAll(db, sql: "SELECT name, value FROM metadata") {
                if let k = String.fromDatabaseValue(row["name"] as DatabaseValue) {
                    out[k] = String.fromDatabaseValue(row["value"] as DatabaseValue) ?? ""
                }
            }
            return out
        }
    }

    /// Parsed metadata; problems found while parsing are appended to `problems`.
    public func metadata(problems: inout [String]) throws(TileStoreError) -> BundleMetadata {
        BundleMetadata(pairs: try metadataPairs(), problems: &problems)
    }

    /// The encoded tile at an XYZ address, or nil.
    public func tile(_ t: TileID) throws(TileStoreError) -> Data? {
        try read { db in
            try Data.fetchOne(
                db, sql: "SELECT tile_data FROM tiles WHERE zoom_level = ? AND tile_column = ? AND tile_row = ?",
                arguments: [t.z, t.x, t.tmsY])
        }
    }

    /// The zooms the bundle serves: its metadata's `minzoom` and `maxzoom` when it declares both
    /// (`pairs`, its metadata rows), else its tiles' (which scans the tiles table); nil when it
    /// declares them not and holds no tiles.
    public func zoomRange(declaredIn pairs: [String: String]) throws(TileStoreError) -> ClosedRange<Int>? {
        if let lo = pairs["minzoom"].flatMap({ Int($0) }), let hi = pairs["maxzoom"].flatMap({ Int($0) }) {
            return min(lo, hi)...max(lo, hi)
        }
        let levels = try zoomLevels()
        guard let lo = levels.first?.zoom, let hi = levels.last?.zoom else { return nil }
        return lo...hi
    }

    /// Per zoom level: tile count, bytes and extent.
    public func zoomLevels() throws(TileStoreError) -> [ZoomLevelSummary] {
        try read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT zoom_level AS z, COUNT(*) AS n, SUM(LENGTH(tile_data)) AS b,
                           MIN(tile_column) AS x0, MAX(tile_column) AS x1, MIN(tile_row) AS r0, MAX(tile_row) AS r1
                    FROM tiles GROUP BY zoom_level ORDER BY zoom_level
                    """
            ).compactMap { row in
                // An untrusted file may hold NULL or text where numbers belong: such rows are left out.
                guard let z = row.int(0), (0...TileID.maxZoom).contains(z), let x0 = row.int(3), let x1 = row.int(4),
                    let r0 = row.int(5), let r1 = row.int(6)
                else { return nil }
                return ZoomLevelSummary(
                    zoom: z, tiles: row.int(1) ?? 0, bytes: row.int(2) ?? 0, minX: x0, maxX: x1,
                    minY: TileID.xyzRow(fromTMS: r1, zoom: z), maxY: TileID.xyzRow(fromTMS: r0, zoom: z))
            }
        }
    }

    /// Number of distinct stored images and their bytes (equal to the tile figures in the plain layout).
    public func storedImages() throws(TileStoreError) -> (count: Int, bytes: Int) {
        try read { db in
            let table = layout == .deduplicated ? "images" : "tiles"
            let row = try Row.fetchOne(db, sql: "SELECT COUNT(*) AS n, SUM(LENGTH(tile_data)) AS b FROM \(table)")
            return (row?["n"] ?? 0, row?["b"] ?? 0)
        }
    }

    /// Calls `body` with every tile (in zoom, column, row order); rows with impossible
    /// addresses are passed to `invalid` instead. Stop early by returning false.
    public func forEachTile(
        zoom: Int? = nil, range: TileRange? = nil,
        invalid: (Int, Int, Int) -> Void = { _, _, _ in },
        _ body: (TileID, Data) -> Bool
    ) throws(TileStoreError) {
        var sql = "SELECT zoom_level, tile_column, tile_row, tile_data FROM tiles"
        var args: StatementArguments = []
        if let r = range {
            sql += " WHERE zoom_level = ? AND tile_column BETWEEN ? AND ? AND tile_row BETWEEN ? AND ?"
            let n = 1 << r.z
            args = [r.z, r.minX, r.maxX, n - 1 - r.maxY, n - 1 - r.minY]
        } else if let z = zoom {
            sql += " WHERE zoom_level = ?"
            args = [z]
        }
        try read { db in
            let cursor = try Row.fetchCursor(db, sql: sql, arguments: args)
            while let row = try cursor.next() {
                // NULL or text where a number belongs reads as -1: an invalid address.
                let z = row.int(0) ?? -1, x = row.int(1) ?? -1, tms = row.int(2) ?? -1
                guard (0...TileID.maxZoom).contains(z), let t = TileID(z: z, x: x, y: TileID.xyzRow(fromTMS: tms, zoom: z)) else {
                    invalid(z, x, tms)
                    continue
                }
                let data = Data.fromDatabaseValue(row[3] as DatabaseValue) ?? Data()
                if !body(t, data) { break }
            }
        }
    }

    /// Every tile's address, a key naming its bytes (equal keys, equal bytes: the stored
    /// `tile_id` of the deduplicated layout, the row of the plain one) and its length, for
    /// writers that lay tiles out themselves; rows with impossible addresses are skipped.
    public func forEachTileKey(_ body: (TileID, String, Int) throws -> Void) throws(TileStoreError) {
        let sql =
            layout == .deduplicated
            ? """
            SELECT m.zoom_level, m.tile_column, m.tile_row, m.tile_id, LENGTH(i.tile_data) FROM map m JOIN images i ON i.tile_id = \
            m.tile_id
            """
            : "SELECT zoom_level, tile_column, tile_row, 'r' || rowid, LENGTH(tile_data) FROM tiles"
        try read { db in
            let cursor = try Row.fetchCursor(db, sql: sql)
            while let row = try cursor.next() {
                guard let z = row.int(0), (0...TileID.maxZoom).contains(z), let x = row.int(1), let tms = row.int(2),
                    let t = TileID(z: z, x: x, y: TileID.xyzRow(fromTMS: tms, zoom: z)),
                    let key = String.fromDatabaseValue(row[3] as DatabaseValue), let length = row.int(4)
                else { continue }
                try body(t, key, length)
            }
        }
    }

    /// The bytes a key of `forEachTileKey` names.
    public func tileBytes(key: String) throws(TileStoreError) -> Data? {
        try read { db in
            if layout == .deduplicated {
                return try Data.fetchOne(db, sql: "SELECT tile_data FROM images WHERE tile_id = ?", arguments: [key])
            }
            return try Data.fetchOne(db, sql: "SELECT tile_data FROM tiles WHERE rowid = ?", arguments: [Int(key.dropFirst()) ?? -1])
        }
    }

    /// `PRAGMA integrity_check` lines other than "ok".
    public func integrityProblems() throws(TileStoreError) -> [String] {
        try read { db in
            try String.fetchAll(db, sql: "PRAGMA integrity_check").filter { $0 != "ok" }
        }
    }

    /// Size of the file in bytes.
    public var fileSize: Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.intValue ?? 0
    }
}

extension Row {
    /// Column `i` as an integer; nil when it is NULL or anything else that is not one (untrusted files).
    func int(_ i: Int) -> Int? { Int.fromDatabaseValue(self[i] as DatabaseValue) }
}
