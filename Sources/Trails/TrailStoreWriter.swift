import Foundation
import GRDB
import Logging

/// Writes trails into an existing MBTiles bundle, replacing any it held, in one transaction: a
/// reader sees the old trails or the new ones, never a mix, and a failure leaves the file as it was.
public enum TrailStoreWriter {
    static let logger = Logger(label: "trailmap.trails.store")

    /// Replaces the trails of the bundle at `path` with `trails`.
    public static func write(_ trails: [TrailRecord], toBundle path: String) throws(TrailStoreError) {
        try inBundle(path) { db in try write(trails, into: db, path: path) }
        logger.info("trails written", metadata: ["bundle": "\(path)", "trails": "\(trails.count)"])
    }

    /// Runs `body` in one write transaction of the MBTiles bundle at `path` (checked to be one).
    static func inBundle(_ path: String, _ body: (Database) throws -> Void) throws(TrailStoreError) {
        guard FileManager.default.fileExists(atPath: path) else { throw .notFound(path: path) }
        let queue: DatabaseQueue
        do {
            var config = Configuration()
            config.prepareDatabase { try $0.execute(sql: "PRAGMA trusted_schema = OFF") }
            queue = try DatabaseQueue(path: path, configuration: config)
        } catch let e as DatabaseError where e.resultCode == .SQLITE_NOTADB {
            throw .notBundle(path: path, reason: "not an SQLite database")
        } catch {
            throw .notBundle(path: path, reason: "\(error)")
        }
        defer { try? queue.close() }
        do {
            try queue.write { db in
                let names = Set(try String.fetchAll(db, sql: "SELECT lower(name) FROM sqlite_master WHERE type IN ('table', 'view')"))
                guard names.contains("tiles"), names.contains("metadata") else {
                    throw TrailStoreError.notBundle(path: path, reason: names.contains("tiles") ? "no metadata table" : "no tiles table")
                }
                try body(db)
            }
        } catch let e as TrailStoreError {
            throw e
        } catch let e as DatabaseError where e.resultCode == .SQLITE_NOTADB {
            throw .notBundle(path: path, reason: "not an SQLite database")
        } catch {
            throw .sqlite(path: path, message: "\(error)")
        }
    }

    /// Copies the trails of `source` whose lines cross `box` into the bundle at `destination`,
    /// replacing its trails (a cut of a region keeps the trails of the cut); returns how many. A
    /// source without trails copies none and writes nothing. Rows are copied as stored.
    @discardableResult
    public static func copy(from source: String, to destination: String, within box: TrailBox) throws(TrailStoreError) -> Int {
        try copyRows(from: [source], to: destination, within: box, duplicates: .keepFirst) ?? 0
    }

    /// Drops the trails tables and writes `trails` inside the caller's transaction (`path` names the file in errors).
    public static func write(_ trails: [TrailRecord], into db: Database, path: String) throws {
        try replaceTables(db)
        let row = try db.makeStatement(
            sql: """
                INSERT INTO trails (id, name, ref, difficulty, allowed_uses, forbidden_uses, surface, length_m,
                    min_lon, min_lat, max_lon, max_lat, start_lon, start_lat, end_lon, end_lat, geometry, source)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
        let box = try db.makeStatement(sql: "INSERT INTO trails_rtree (id, min_lon, max_lon, min_lat, max_lat) VALUES (?, ?, ?, ?, ?)")
        var seen = Set<TrailID>()
        // In id order: the id is the rowid, and hashes in file order would land each row at a
        // random page of the table (part-filled pages, pages read back).
        for t in trails.sorted(by: { $0.id < $1.id }) {
            guard seen.insert(t.id).inserted else { throw TrailStoreError.duplicateID(path: path, id: t.id) }
            let b = t.bounds, s = t.start, e = t.end
            try row.execute(arguments: [
                t.id.value, t.name, t.ref, t.difficulty.rawValue, t.allowedUses.rawValue,
                t.forbiddenUses.rawValue, t.surface, t.lengthMetres,
                b.west, b.south, b.east, b.north, s.lon, s.lat, e.lon, e.lat,
                Data(GeometryCodec.encode(t.geometry)), t.source
            ])
            try box.execute(arguments: [t.id.value, b.west, b.east, b.south, b.north])
        }
        try finishTables(db, count: trails.count)
    }

    /// Drops the trails tables and makes them again, empty.
    static func replaceTables(_ db: Database) throws {
        for table in TrailStoreSchema.tables { try db.execute(sql: "DROP TABLE IF EXISTS \(table)") }
        try db.execute(sql: TrailStoreSchema.create)
    }

    /// Builds the FTS index over the rows of `trails` and records the schema and `count`.
    static func finishTables(_ db: Database, count: Int) throws {
        try db.execute(sql: "INSERT INTO trails_fts (trails_fts) VALUES ('rebuild')")
        try db.execute(
            sql: "INSERT INTO trails_info (name, value) VALUES ('schema', ?), ('count', ?)",
            arguments: [TrailStoreSchema.version, String(count)])
    }

    /// Applies a patch's trail changes inside the caller's transaction: the trails of `put` (a
    /// table with `trails`' columns) replace those of the same ids, the ids of `delete` go, and
    /// with `replaceAll` every trail goes first; the R*Tree, the FTS index and the count follow.
    /// `put` and `delete` are names of attached tables (code constants, not input).
    public static func apply(_ db: Database, put: String?, delete: String?, replaceAll: Bool) throws {
        if try !db.tableExists("trails") {
            try db.execute(sql: TrailStoreSchema.create)
            try db.execute(
                sql: "INSERT INTO trails_info (name, value) VALUES ('schema', ?), ('count', '0')", arguments: [TrailStoreSchema.version])
        }
        let columns = TrailStoreSchema.allColumns
        if replaceAll {
            try db.execute(sql: "INSERT INTO trails_fts (trails_fts) VALUES ('delete-all')")
            try db.execute(sql: "DELETE FROM trails_rtree")
            try db.execute(sql: "DELETE FROM trails")
        } else {
            let ids = [put, delete].compactMap { $0.map { "SELECT id FROM \($0)" } }.joined(separator: " UNION ")
            if !ids.isEmpty {
                try db.execute(
                    sql:
                        """
                        INSERT INTO trails_fts (trails_fts, rowid, name, ref) SELECT 'delete', id, name, ref FROM trails WHERE id IN \
                        (\(ids))
                        """
                )
                try db.execute(sql: "DELETE FROM trails_rtree WHERE id IN (\(ids))")
                try db.execute(sql: "DELETE FROM trails WHERE id IN (\(ids))")
            }
        }
        if let put {
            try db.execute(sql: "INSERT INTO trails (\(columns)) SELECT \(columns) FROM \(put)")
            try db.execute(
                sql:
                    """
                    INSERT INTO trails_rtree (id, min_lon, max_lon, min_lat, max_lat) SELECT id, min_lon, max_lon, min_lat, max_lat FROM \
                    \(put)
                    """
            )
            try db.execute(sql: "INSERT INTO trails_fts (rowid, name, ref) SELECT id, name, ref FROM \(put)")
        }
        try db.execute(sql: "UPDATE trails_info SET value = (SELECT count(*) FROM trails) WHERE name = 'count'")
    }
}
