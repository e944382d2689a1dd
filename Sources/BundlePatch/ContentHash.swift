import Crypto
import Foundation
import GRDB
import TileStore

/// The content of a bundle, hashed the same way on the server and on a device whatever the file's
/// SQLite layout: SHA-256 over
///
///     trailmap-content-1\n
///     m <bytes of name>:<name> <bytes of value>:<value>\n    every metadata row, by name (bytewise)
///     t <zoom> <column> <TMS row> <tile hash>\n              every tile, by zoom, column, row
///     r <id> <row hash>\n                                    every row of `trails`, by id (when the table exists)
///
/// where a tile's hash is `TileHash.id` of its bytes (the first 128 bits of their SHA-256, hex),
/// and a trail row's hash is `TileHash.id` of its columns, by name, each as
/// `<name> 0x1F <value> 0x1E` with the value `n` (NULL), `i<decimal>`, `f<IEEE bits in hex>`,
/// `t<bytes>:<UTF-8>` or `b<bytes>:<bytes>`. Two bundles with the same hash hold the same
/// metadata, the same tiles and the same trails; a bundle without trails hashes as before trails
/// existed. (The trails' R*Tree and FTS index are derived from `trails` and not hashed.)
public enum ContentHash {
    /// One tile's address (TMS row, as stored) and hash.
    public struct TileEntry: Sendable, Equatable {
        public var zoom: Int
        public var column: Int
        public var row: Int
        public var hash: String
    }

    /// Hashes the bundle at `path`, calling `tile` with every tile's entry in order and `trail`
    /// with every trail's id and row hash (for an index).
    public static func of(
        bundle path: String, tile: (TileEntry) throws -> Void = { _ in },
        trail: (Int64, String) throws -> Void = { _, _ in }
    ) throws(PatchError) -> (hash: String, metadata: [String: String]) {
        do {
            let db = try DatabaseQueue(path: path, configuration: GuardedSQLite.configuration(readonly: true))
            return try db.read { db in
                var hasher = SHA256()
                hasher.update(data: Data("trailmap-content-1\n".utf8))
                var metadata = [String: String]()
                for row in try Row.fetchAll(db, sql: "SELECT name, value FROM metadata") {
                    if let name = String.fromDatabaseValue(row[0] as DatabaseValue) {
                        metadata[name] = String.fromDatabaseValue(row[1] as DatabaseValue) ?? ""
                    }
                }
                for (name, value) in metadata.sorted(by: { Array($0.key.utf8).lexicographicallyPrecedes(Array($1.key.utf8)) }) {
                    hasher.update(data: Data("m \(name.utf8.count):\(name) \(value.utf8.count):\(value)\n".utf8))
                }
                let cursor = try Row.fetchCursor(
                    db, sql: "SELECT zoom_level, tile_column, tile_row, tile_data FROM tiles ORDER BY zoom_level, tile_column, tile_row")
                while let row = try cursor.next() {
                    guard let z = Int.fromDatabaseValue(row[0] as DatabaseValue), let x = Int.fromDatabaseValue(row[1] as DatabaseValue),
                        let y = Int.fromDatabaseValue(row[2] as DatabaseValue)
                    else {
                        throw PatchError.file(path: path, reason: "a tile row without a zoom, column or row")
                    }
                    let data = Data.fromDatabaseValue(row[3] as DatabaseValue) ?? Data()
                    let entry = TileEntry(zoom: z, column: x, row: y, hash: TileHash.id(data))
                    hasher.update(data: Data("t \(entry.zoom) \(entry.column) \(entry.row) \(entry.hash)\n".utf8))
                    try tile(entry)
                }
                if try db.tableExists("trails") { try hashTrails(db, into: &hasher, path: path, trail: trail) }
                return (hasher.finalize().map { String(format: "%02x", $0) }.joined(), metadata)
            }
        } catch let e as PatchError {
            throw e
        } catch {
            throw .file(path: path, reason: "\(error)")
        }
    }

    /// The `r` lines: every row of `trails` by id, all its columns hashed by name.
    static func hashTrails(_ db: Database, into hasher: inout SHA256, path: String, trail: (Int64, String) throws -> Void) throws {
        let cursor = try Row.fetchCursor(db, sql: "SELECT * FROM trails ORDER BY id")
        while let row = try cursor.next() {
            guard let id = Int64.fromDatabaseValue(row["id"] as DatabaseValue) else {
                throw PatchError.file(path: path, reason: "a trail row without an integer id")
            }
            var bytes = [UInt8]()
            for name in row.columnNames.sorted() {
                bytes += Array(name.utf8) + [0x1f]
                switch (row[name] as DatabaseValue).storage {
                case .null: bytes += Array("n".utf8)
                case let .int64(v): bytes += Array("i\(v)".utf8)
                case let .double(v): bytes += Array("f\(String(v.bitPattern, radix: 16))".utf8)
                case let .string(s): bytes += Array("t\(s.utf8.count):".utf8) + Array(s.utf8)
                case let .blob(d): bytes += Array("b\(d.count):".utf8) + Array(d)
                }
                bytes.append(0x1e)
            }
            let rowHash = TileHash.id(bytes)
            hasher.update(data: Data("r \(id) \(rowHash)\n".utf8))
            try trail(id, rowHash)
        }
    }
}
