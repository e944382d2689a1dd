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
///
/// where a tile's hash is `TileHash.id` of its bytes (the first 128 bits of their SHA-256, hex).
/// Two bundles with the same hash hold the same metadata and the same tiles.
public enum ContentHash {
    /// One tile's address (TMS row, as stored) and hash.
    public struct TileEntry: Sendable, Equatable {
        public var zoom: Int
        public var column: Int
        public var row: Int
        public var hash: String
    }

    /// Hashes the bundle at `path`, calling `tile` with every tile's entry in order (for an index).
    public static func of(bundle path: String, tile: (TileEntry) throws -> Void = { _ in }) throws(PatchError) -> (hash: String, metadata: [String: String]) {
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
                let cursor = try Row.fetchCursor(db, sql: "SELECT zoom_level, tile_column, tile_row, tile_data FROM tiles ORDER BY zoom_level, tile_column, tile_row")
                while let row = try cursor.next() {
                    guard let z = Int.fromDatabaseValue(row[0] as DatabaseValue), let x = Int.fromDatabaseValue(row[1] as DatabaseValue),
                          let y = Int.fromDatabaseValue(row[2] as DatabaseValue) else {
                        throw PatchError.file(path: path, reason: "a tile row without a zoom, column or row")
                    }
                    let data = Data.fromDatabaseValue(row[3] as DatabaseValue) ?? Data()
                    let entry = TileEntry(zoom: z, column: x, row: y, hash: TileHash.id(data))
                    hasher.update(data: Data("t \(entry.zoom) \(entry.column) \(entry.row) \(entry.hash)\n".utf8))
                    try tile(entry)
                }
                return (hasher.finalize().map { String(format: "%02x", $0) }.joined(), metadata)
            }
        } catch let e as PatchError {
            throw e
        } catch {
            throw .file(path: path, reason: "\(error)")
        }
    }
}
