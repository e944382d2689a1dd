import Foundation
import GRDB
import TileStore

/// What the server keeps of a published version once its bundle is replaced: every tile's address
/// and hash, every trail's id and row hash (`trails`, since trails are data), the metadata, the
/// bundle's SHA-256 and content hash (an SQLite file, ~40 bytes a tile). A patch from this version
/// to a later one is made from it and the later bundle.
public enum VersionIndex {
    /// Writes the index of `bundle` (published as `version`, file SHA-256 `sha256`) to `path`;
    /// its content hash.
    @discardableResult
    public static func create(bundle: String, version: Int, sha256: String, at path: String) throws(PatchError) -> String {
        try NewSQLiteFile.create(at: path) { db in
            try db.writeWithoutTransaction { db in
                try db.execute(
                    sql: """
                        CREATE TABLE info (name TEXT PRIMARY KEY, value TEXT NOT NULL);
                        CREATE TABLE metadata (name TEXT PRIMARY KEY, value TEXT);
                        CREATE TABLE tiles (zoom_level INTEGER, tile_column INTEGER, tile_row INTEGER, hash TEXT NOT NULL,
                                            PRIMARY KEY (zoom_level, tile_column, tile_row)) WITHOUT ROWID;
                        CREATE TABLE trails (id INTEGER PRIMARY KEY, hash TEXT NOT NULL);
                        """)
            }
            return try db.write { db -> String in
                let insert = try db.makeStatement(sql: "INSERT INTO tiles VALUES (?, ?, ?, ?)")
                let trail = try db.makeStatement(sql: "INSERT INTO trails VALUES (?, ?)")
                let (hash, metadata) = try ContentHash.of(
                    bundle: bundle,
                    tile: { e in
                        try insert.execute(arguments: [e.zoom, e.column, e.row, e.hash])
                    },
                    trail: { id, rowHash in
                        try trail.execute(arguments: [id, rowHash])
                    })
                for (k, v) in metadata { try db.execute(sql: "INSERT INTO metadata VALUES (?, ?)", arguments: [k, v]) }
                for (k, v) in ["version": String(version), "sha256": sha256, "content": hash] {
                    try db.execute(sql: "INSERT INTO info VALUES (?, ?)", arguments: [k, v])
                }
                return hash
            }
        }
    }

    /// The `info` pairs of an index (version, sha256, content).
    public static func info(_ path: String) throws(PatchError) -> [String: String] {
        do {
            var config = Configuration()
            config.readonly = true
            let db = try DatabaseQueue(path: path, configuration: config)
            return try db.read { db in
                try Row.fetchAll(db, sql: "SELECT name, value FROM info").pairs()
            }
        } catch { throw .file(path: path, reason: "\(error)") }
    }
}
