import Foundation
import GRDB
import TileStore

/// A patch from one published version of a bundle to a later one, as an SQLite file:
///
///     patch (name, value)      format = trailmap-patch-1, from_version, to_version,
///                              from_content, to_content (content hashes, `ContentHash`)
///     put (zoom_level, tile_column, tile_row, tile_data)   tiles added or replaced (TMS rows)
///     del (zoom_level, tile_column, tile_row)              tiles removed
///     meta_put (name, value), meta_del (name)              metadata changes
///     trails_put (the columns of `trails`), trails_del (id)  trails added or changed, removed
///                              (when either version has trails; `patch` then says trails =
///                              replace when the earlier version's index has no trail hashes
///                              and every trail of the later one is put)
///
/// It is made once, when the later version is published, from the earlier version's index and
/// the later bundle, and served like a bundle (Range, ETag = its SHA-256).
public enum PatchFile {
    public static let format = "trailmap-patch-1"

    /// What a patch says about itself.
    public struct Header: Sendable, Equatable, Codable {
        public var fromVersion: Int
        public var toVersion: Int
        public var fromContent: String
        public var toContent: String
    }

    /// What a made patch holds.
    public struct Counts: Sendable, Equatable {
        public var put = 0
        public var deleted = 0
        public var metadataChanges = 0
    }

    /// Writes the patch from the version indexed at `oldIndex` to `newBundle` (indexed at
    /// `newIndex`) to `path`.
    @discardableResult
    public static func make(from oldIndex: String, to newBundle: String, newIndex: String, at path: String) throws(PatchError) -> Counts {
        let old = try VersionIndex.info(oldIndex), new = try VersionIndex.info(newIndex)
        guard let fromV = old["version"], let toV = new["version"], let fromC = old["content"], let toC = new["content"] else {
            throw PatchError.file(path: oldIndex, reason: "an index without version or content hash")
        }
        return try NewSQLiteFile.create(at: path) { db in
            var counts = Counts()
            try db.writeWithoutTransaction { db in
                try db.execute(
                    sql: """
                        CREATE TABLE patch (name TEXT PRIMARY KEY, value TEXT NOT NULL);
                        CREATE TABLE put (zoom_level INTEGER, tile_column INTEGER, tile_row INTEGER, tile_data BLOB NOT NULL,
                                          PRIMARY KEY (zoom_level, tile_column, tile_row));
                        CREATE TABLE del (zoom_level INTEGER, tile_column INTEGER, tile_row INTEGER,
                                          PRIMARY KEY (zoom_level, tile_column, tile_row));
                        CREATE TABLE meta_put (name TEXT PRIMARY KEY, value TEXT);
                        CREATE TABLE meta_del (name TEXT PRIMARY KEY);
                        """)
                try db.execute(sql: "ATTACH DATABASE ? AS old", arguments: [oldIndex])
                try db.execute(sql: "ATTACH DATABASE ? AS new", arguments: [newIndex])
                try db.execute(sql: "ATTACH DATABASE ? AS bundle", arguments: [newBundle])
                try db.inTransaction {
                    try db.execute(
                        sql: """
                            INSERT INTO put SELECT t.zoom_level, t.tile_column, t.tile_row, t.tile_data
                            FROM new.tiles n JOIN bundle.tiles t
                              ON t.zoom_level = n.zoom_level AND t.tile_column = n.tile_column AND t.tile_row = n.tile_row
                            WHERE NOT EXISTS (SELECT 1 FROM old.tiles o WHERE o.zoom_level = n.zoom_level
                              AND o.tile_column = n.tile_column AND o.tile_row = n.tile_row AND o.hash = n.hash)
                            """)
                    counts.put = db.changesCount
                    try db.execute(
                        sql: """
                            INSERT INTO del SELECT o.zoom_level, o.tile_column, o.tile_row FROM old.tiles o
                            WHERE NOT EXISTS (SELECT 1 FROM new.tiles n WHERE n.zoom_level = o.zoom_level
                              AND n.tile_column = o.tile_column AND n.tile_row = o.tile_row)
                            """)
                    counts.deleted = db.changesCount
                    try db.execute(
                        sql: """
                            INSERT INTO meta_put SELECT n.name, n.value FROM new.metadata n
                            WHERE NOT EXISTS (SELECT 1 FROM old.metadata o WHERE o.name = n.name AND o.value IS n.value)
                            """)
                    counts.metadataChanges = db.changesCount
                    try db.execute(
                        sql: "INSERT INTO meta_del SELECT name FROM old.metadata WHERE name NOT IN (SELECT name FROM new.metadata)")
                    counts.metadataChanges += db.changesCount
                    if try trails(db) { try db.execute(sql: "INSERT INTO patch VALUES ('trails', 'replace')") }
                    for (k, v) in ["format": format, "from_version": fromV, "to_version": toV, "from_content": fromC, "to_content": toC] {
                        try db.execute(sql: "INSERT INTO patch VALUES (?, ?)", arguments: [k, v])
                    }
                    return .commit
                }
                for name in ["old", "new", "bundle"] { try db.execute(sql: "DETACH DATABASE \(name)") }
            }
            return counts
        }
    }

    /// Writes `trails_put` / `trails_del` (with `old`, `new` and `bundle` attached); true when
    /// the earlier version's index has no trail hashes, so every trail is put and the patch replaces them all.
    static func trails(_ db: Database) throws -> Bool {
        func has(_ schema: String, _ table: String) throws -> Bool {
            try Int.fetchOne(db, sql: "SELECT count(*) FROM \(schema).sqlite_master WHERE type = 'table' AND name = ?", arguments: [table])
                ?? 0 > 0
        }
        let bundleHas = try has("bundle", "trails"), oldIndexed = try has("old", "trails")
        let oldHas = oldIndexed ? (try Int.fetchOne(db, sql: "SELECT count(*) FROM old.trails") ?? 0) > 0 : false
        guard bundleHas || oldHas else { return false }
        if bundleHas {
            try db.execute(sql: "CREATE TABLE trails_put AS SELECT * FROM bundle.trails WHERE 0")
            try db.execute(
                sql: oldIndexed
                    ? """
                    INSERT INTO trails_put SELECT b.* FROM bundle.trails b JOIN new.trails n ON n.id = b.id
                    WHERE NOT EXISTS (SELECT 1 FROM old.trails o WHERE o.id = n.id AND o.hash = n.hash)
                    """ : "INSERT INTO trails_put SELECT * FROM bundle.trails")
        }
        try db.execute(sql: "CREATE TABLE trails_del (id INTEGER PRIMARY KEY)")
        if oldIndexed {
            try db.execute(
                sql: bundleHas
                    ? "INSERT INTO trails_del SELECT id FROM old.trails WHERE id NOT IN (SELECT id FROM new.trails)"
                    : "INSERT INTO trails_del SELECT id FROM old.trails")
        }
        return !oldIndexed
    }

    /// Reads and checks a patch's header, after checking the file is a plain patch (`check`).
    public static func header(_ path: String) throws(PatchError) -> Header { try checked(path).header }

    /// Checks the file is a plain patch (`check`), then reads and checks its header.
    public static func checked(_ path: String) throws(PatchError) -> (header: Header, extent: Extent) {
        let extent = try check(path)
        do {
            let db = try DatabaseQueue(path: path, configuration: GuardedSQLite.configuration(readonly: true))
            let pairs =
                try db.read { db in
                    try Row.fetchAll(db, sql: "SELECT name, value FROM patch").pairs()
                } as [String: String]
            guard pairs["format"] == format else {
                throw PatchError.corrupt(path: path, reason: "format \(pairs["format"] ?? "missing"), not \(format)")
            }
            guard let f = pairs["from_version"].flatMap(Int.init), let t = pairs["to_version"].flatMap(Int.init),
                let fc = pairs["from_content"], let tc = pairs["to_content"]
            else {
                throw PatchError.corrupt(path: path, reason: "its header lacks versions or content hashes")
            }
            return (Header(fromVersion: f, toVersion: t, fromContent: fc, toContent: tc), extent)
        } catch let e as PatchError {
            throw e
        } catch {
            throw .corrupt(path: path, reason: "\(error)")
        }
    }
}
