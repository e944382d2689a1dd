import Foundation
import GRDB
import Synchronization

/// The trails of one bundle, opened read-only: look-ups by id and searches.
public final class TrailIndex: Sendable {
    public let path: String
    let db: DatabaseQueue
    /// The FTS index's terms, read on the first search with text.
    private let vocabulary = Mutex<[String]?>(nil)

    /// Opens the bundle at `path`; it must hold trails tables of a version this code reads.
    public init(bundle path: String) throws(TrailStoreError) {
        guard FileManager.default.fileExists(atPath: path) else { throw .notFound(path: path) }
        self.path = path
        do {
            var config = Configuration()
            config.readonly = true
            config.prepareDatabase { db in
                // A bundle is untrusted input: its schema may not call functions with side effects.
                try db.execute(sql: "PRAGMA trusted_schema = OFF")
                if try db.tableExists("trails_fts") {
                    try db.execute(sql: "CREATE VIRTUAL TABLE temp.trails_vocab USING fts5vocab(main, trails_fts, row)")
                }
            }
            db = try DatabaseQueue(path: path, configuration: config)
            let tables = Set(try db.read { try String.fetchAll($0, sql: "SELECT name FROM sqlite_master WHERE type = 'table'") })
            guard tables.contains("trails"), tables.contains("trails_info") else { throw TrailStoreError.noTrails(path: path) }
            let version = try db.read { try String.fetchOne($0, sql: "SELECT value FROM trails_info WHERE name = 'schema'") }
            guard version == TrailStoreSchema.version else {
                throw TrailStoreError.badTrailsSchema(
                    path: path, reason: "schema version \(version ?? "missing"), this TrailMap reads \(TrailStoreSchema.version)")
            }
        } catch let e as TrailStoreError {
            throw e
        } catch let e as DatabaseError where e.resultCode == .SQLITE_NOTADB {
            throw .notBundle(path: path, reason: "not an SQLite database")
        } catch {
            throw .badTrailsSchema(path: path, reason: "\(error)")
        }
    }

    func read<T>(_ body: (Database) throws -> T) throws(TrailStoreError) -> T {
        do { return try db.read(body) } catch let e as TrailStoreError { throw e } catch {
            throw .sqlite(path: path, message: "\(error)")
        }
    }

    /// Number of trails.
    public func count() throws(TrailStoreError) -> Int {
        try read { try Int.fetchOne($0, sql: "SELECT count(*) FROM trails") ?? 0 }
    }

    /// One trail with its geometry; nil when the bundle has no trail of that id.
    public func trail(_ id: TrailID) throws(TrailStoreError) -> TrailRecord? {
        try read { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT \(TrailStoreSchema.columns) FROM trails WHERE id = ?", arguments: [id.value])
            else {
                return nil
            }
            return try Self.record(row, path: path)
        }
    }

    /// Every trail, by id (for exports and tests).
    public func all() throws(TrailStoreError) -> [TrailRecord] {
        try read { db in
            try Row.fetchAll(db, sql: "SELECT \(TrailStoreSchema.columns) FROM trails ORDER BY id").map { try Self.record($0, path: path) }
        }
    }

    /// Searches this bundle alone.
    public func search(_ query: TrailQuery) throws(TrailSearchError) -> TrailPage {
        try TrailSearch.search(query, in: [self])
    }

    static func record(_ row: Row, path: String) throws -> TrailRecord {
        let id = TrailID(value: row.int64(0))
        guard let geometry = GeometryCodec.decode(row.bytes(8)) else { throw TrailStoreError.badGeometry(path: path, id: id) }
        var r = TrailRecord(
            id: id, name: row.text(1), ref: row.text(2),
            difficulty: row.text(3).flatMap(TrailDifficulty.init(rawValue:)) ?? .unknown,
            allowedUses: TrailUses(rawValue: row.integer(4)), forbiddenUses: TrailUses(rawValue: row.integer(5)),
            surface: row.text(6), geometry: geometry, source: row.text(9) ?? "")
        r.lengthMetres = row.real(7)
        return r
    }

    /// The FTS index's terms (cached).
    func terms() throws(TrailStoreError) -> [String] {
        if let cached = vocabulary.withLock({ $0 }) { return cached }
        let terms = try read { try String.fetchAll($0, sql: "SELECT term FROM temp.trails_vocab") }
        vocabulary.withLock { $0 = terms }
        return terms
    }
}
