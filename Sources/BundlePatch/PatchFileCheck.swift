import Foundation
import GRDB

extension PatchFile {
    /// What a checked patch file holds: its size, its rows (all tables) and the bytes of its tiles
    /// and metadata values, each bounded by the file's size.
    public struct Extent: Sendable, Equatable {
        public var fileBytes: Int64
        public var rows: Int64
        public var dataBytes: Int64
    }

    /// The tables of a patch and the columns each must have.
    static let tables: [String: [String]] = [
        "patch": ["name", "value"],
        "put": ["zoom_level", "tile_column", "tile_row", "tile_data"],
        "del": ["zoom_level", "tile_column", "tile_row"],
        "meta_put": ["name", "value"],
        "meta_del": ["name"]
    ]
    /// Tables a patch may have (the trails changed and removed), and the columns each must have.
    static let optionalTables: [String: [String]] = [
        "trails_put": ["id", "name", "geometry"],
        "trails_del": ["id"]
    ]

    /// Smallest bytes a row takes in an SQLite file (cell pointer, sizes, record header).
    static let minimumRowBytes: Int64 = 4

    /// Checks, before anything reads it, that the file at `path` holds only a patch's plain
    /// tables: no view (a recursive one yields rows without end), trigger, virtual table,
    /// generated column or explicit index; and that its rows and bytes fit a file of its size
    /// (true of real tables, whatever a server wrote in them). Opened read-only, in SQLite's
    /// defensive mode, with `trusted_schema = OFF`.
    public static func check(_ path: String) throws(PatchError) -> Extent {
        let size: Int64
        do {
            size = ((try FileManager.default.attributesOfItem(atPath: path))[.size] as? NSNumber)?.int64Value ?? 0
        } catch { throw .file(path: path, reason: "\(error)") }
        func unsafe(_ reason: String) -> PatchError { .unsafe(path: path, reason: reason) }
        do {
            let db = try DatabaseQueue(path: path, configuration: GuardedSQLite.configuration(readonly: true))
            defer { try? db.close() }
            return try db.read { db -> Extent in
                let known = tables.merging(optionalTables) { a, _ in a }
                var present = tables
                for row in try Row.fetchAll(db, sql: "SELECT type, name, tbl_name, sql FROM sqlite_master") {
                    let type = String.fromDatabaseValue(row[0] as DatabaseValue) ?? "?"
                    let name = String.fromDatabaseValue(row[1] as DatabaseValue) ?? "?"
                    let table = String.fromDatabaseValue(row[2] as DatabaseValue) ?? "?"
                    let sql = String.fromDatabaseValue(row[3] as DatabaseValue)
                    switch type {
                    case "table":
                        guard let columns = known[name] else {
                            throw unsafe("it holds a table \(name.debugDescription), which no patch has")
                        }
                        present[name] = columns
                        if let sql, sql.uppercased().hasPrefix("CREATE VIRTUAL") { throw unsafe("its table \(name) is a virtual table") }
                    case "index":
                        guard sql == nil, known[table] != nil else { throw unsafe("it holds an index \(name.debugDescription) of its own") }
                    default:
                        throw unsafe("it holds a \(type) \(name.debugDescription); a patch has only tables")
                    }
                }
                var rows: Int64 = 0
                var bytes: Int64 = 0
                for (table, columns) in present.sorted(by: { $0.key < $1.key }) {
                    let info = try Row.fetchAll(db, sql: "PRAGMA table_xinfo(\"\(table)\")")
                    guard !info.isEmpty else { throw PatchError.corrupt(path: path, reason: "it has no table \(table)") }
                    var names = Set<String>()
                    for column in info {
                        let name = String.fromDatabaseValue(column["name"] as DatabaseValue) ?? "?"
                        names.insert(name)
                        if (Int.fromDatabaseValue(column["hidden"] as DatabaseValue) ?? 0) != 0 {
                            throw unsafe("the column \(table).\(name) is generated or hidden")
                        }
                    }
                    guard Set(columns).isSubset(of: names) else {
                        throw PatchError.corrupt(
                            path: path, reason: "its table \(table) lacks a column of \(columns.joined(separator: ", "))")
                    }
                    rows += try Int64.fetchOne(db, sql: "SELECT count(*) FROM \"\(table)\"") ?? 0
                }
                bytes += try Int64.fetchOne(db, sql: "SELECT coalesce(sum(length(tile_data)), 0) FROM put") ?? 0
                bytes +=
                    try Int64.fetchOne(db, sql: "SELECT coalesce(sum(length(name) + coalesce(length(value), 0)), 0) FROM meta_put") ?? 0
                if present["trails_put"] != nil {
                    bytes +=
                        try Int64.fetchOne(
                            db, sql: "SELECT coalesce(sum(coalesce(length(geometry), 0) + coalesce(length(name), 0)), 0) FROM trails_put")
                        ?? 0
                }
                guard rows <= size / minimumRowBytes else { throw unsafe("\(rows) rows, more than a file of \(size) bytes holds") }
                guard bytes <= size else { throw unsafe("\(bytes) bytes of tiles and metadata, more than a file of \(size) bytes holds") }
                return Extent(fileBytes: size, rows: rows, dataBytes: bytes)
            }
        } catch let e as PatchError {
            throw e
        } catch {
            throw .corrupt(path: path, reason: "\(error)")
        }
    }
}
