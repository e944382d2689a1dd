import Essentials
import Foundation
import GRDB
import Synchronization
import TileGeometry

/// What a resumable writer found beside its destination.
public enum BuildStart: Sendable, Equatable {
    /// No partial build: a new file.
    case fresh
    /// A partial build of the same fingerprint, continued: its finished units.
    case resumed(units: Int, tiles: Int)
    /// A partial build of other arguments (or unreadable), deleted: why.
    case discarded(reason: String)
}

extension BundleWriter {
    /// `DIR/.NAME.building` for a destination `DIR/NAME`: a resumable writer's partial file.
    public static func partialPath(for path: String) -> String {
        let url = URL(fileURLWithPath: path)
        return url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).building").path
    }

    /// A resumable writer. Its partial file (`partialPath`) has a journal (WAL, synchronous NORMAL:
    /// consistent after SIGKILL or power loss, the last commits lost at worst) and records
    /// `fingerprint` and each finished unit. A partial of the same fingerprint is continued; one of
    /// another fingerprint, or unreadable, is deleted and the build starts over (`BuildStart` says
    /// which). A second build of the same destination at once is refused.
    public static func resumable(path: String, fingerprint: String) throws(TileStoreError) -> (BundleWriter, BuildStart) {
        try checkDestination(path)
        removeStaleTemporaries(for: path)
        let partial = partialPath(for: path)
        let lock: FileLock
        do { lock = try FileLock(path: partial + ".lock", wait: false) } catch {
            switch error {
            case .busy: throw .cannotCreate(path: path, reason: "another build is writing it now (\(partial).lock is held)")
            case let .system(e): throw .cannotCreate(path: path, reason: "\(e)")
            }
        }
        var start = BuildStart.fresh
        if FileManager.default.fileExists(atPath: partial) {
            switch openPartial(partial, fingerprint: fingerprint) {
            case let .success((db, stats, units)):
                return (
                    BundleWriter(path: path, temporaryPath: partial, db: db, stats: stats, lock: lock, mayHoldTiles: true),
                    .resumed(units: units, tiles: stats.tiles)
                )
            case let .failure(reason):
                removePartial(partial)
                start = .discarded(reason: reason.message)
            }
        }
        do {
            var config = Configuration()
            config.journalMode = .default
            let db = try DatabaseQueue(path: partial, configuration: config)
            try db.writeWithoutTransaction { db in
                // auto_vacuum must come before the first table; it lets `finish` give back the journal's pages.
                try db.execute(sql: "PRAGMA page_size = 4096; PRAGMA auto_vacuum = INCREMENTAL;")
                try db.execute(sql: "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;")
                try db.execute(sql: BundleSchema.create)
                try db.execute(sql: BuildJournalSchema.create)
                try db.execute(sql: "INSERT INTO trailmap_build (name, value) VALUES ('fingerprint', ?)", arguments: [fingerprint])
            }
            return (BundleWriter(path: path, temporaryPath: partial, db: db, stats: BundleWriteStats(), lock: lock), start)
        } catch {
            removePartial(partial)
            throw .cannotCreate(path: path, reason: "\(error)")
        }
    }

    private struct Refusal: Error { var message: String }

    private static func openPartial(_ partial: String, fingerprint: String) -> Result<(DatabaseQueue, BundleWriteStats, Int), Refusal> {
        do {
            var config = Configuration()
            config.journalMode = .default
            let db = try DatabaseQueue(path: partial, configuration: config)
            let found = try db.writeWithoutTransaction { db -> (String?, BundleWriteStats, Int) in
                try db.execute(sql: "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;")
                let recorded = try BuildJournalSchema.record(db)["fingerprint"]
                guard recorded == fingerprint else { return (recorded, BundleWriteStats(), 0) }
                let units = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM trailmap_units") ?? 0
                return (recorded, try stats(db), units)
            }
            guard found.0 == fingerprint else {
                try? db.close()
                return .failure(
                    Refusal(message: found.0 == nil ? "it records no build fingerprint" : "it was started with other arguments or sources"))
            }
            return .success((db, found.1, found.2))
        } catch {
            return .failure(Refusal(message: "it cannot be read (\(error))"))
        }
    }

    /// The counts of what a file holds.
    static func stats(_ db: Database) throws -> BundleWriteStats {
        var s = BundleWriteStats()
        for row in try Row.fetchAll(db, sql: "SELECT zoom_level, COUNT(*) FROM map GROUP BY zoom_level") {
            let count = (row[1] as Int?) ?? 0
            if let z = row[0] as Int? { s.tilesPerZoom[z] = count }
            s.tiles += count
        }
        let images = try Row.fetchOne(db, sql: "SELECT COUNT(*), COALESCE(SUM(LENGTH(tile_data)), 0) FROM images")
        s.uniqueImages = images?[0] ?? 0
        s.storedBytes = images?[1] ?? 0
        s.tileBytes =
            try Int.fetchOne(db, sql: "SELECT COALESCE(SUM(LENGTH(images.tile_data)), 0) FROM map JOIN images USING (tile_id)") ?? 0
        return s
    }

    /// Deletes a partial file with its WAL and shared-memory files.
    static func removePartial(_ partial: String) {
        for suffix in ["", "-wal", "-shm", "-journal"] { try? FileManager.default.removeItem(atPath: partial + suffix) }
    }

    func releaseLock() {
        lock?.release()
    }

    /// The units recorded as finished.
    public func finishedUnits() throws(TileStoreError) -> Set<BuildUnit> {
        do { return Set(try db.read { try BuildJournalSchema.units($0) }) } catch {
            throw .sqlite(path: temporaryPath, message: "\(error)")
        }
    }

    /// A finished unit's recorded root (nil when transparent).
    public func unitRoot(_ unit: BuildUnit) throws(TileStoreError) -> [UInt8]? {
        do { return try db.read { try BuildJournalSchema.root($0, unit) } } catch {
            throw .sqlite(path: temporaryPath, message: "\(error)")
        }
    }

    /// Copies every tile of the bundle at `source` (a TrailMap bundle: `map` and `images`) into
    /// this one, replacing tiles at the same address; identical images are stored once.
    public func copyTiles(from source: String) throws(TileStoreError) {
        do {
            let counts = try db.writeWithoutTransaction { db -> BundleWriteStats in
                try db.execute(sql: "ATTACH DATABASE ? AS part", arguments: [source])
                defer { try? db.execute(sql: "DETACH DATABASE part") }
                try db.inTransaction {
                    try db.execute(sql: "INSERT OR IGNORE INTO main.images (tile_id, tile_data) SELECT tile_id, tile_data FROM part.images")
                    try db.execute(
                        sql: """
                            INSERT OR REPLACE INTO main.map (zoom_level, tile_column, tile_row, tile_id)
                            SELECT zoom_level, tile_column, tile_row, tile_id FROM part.map
                            """)
                    return .commit
                }
                return try BundleWriter.stats(db)
            }
            state.withLock { $0 = counts }
        } catch {
            throw .sqlite(path: source, message: "\(error)")
        }
    }

    /// Attaches the bundle an update starts from, as `base`: `add(kept:)` copies its tiles.
    public func attachBase(_ basePath: String) throws(TileStoreError) {
        do { try db.writeWithoutTransaction { try $0.execute(sql: "ATTACH DATABASE ? AS base", arguments: [basePath]) } } catch {
            throw .sqlite(path: basePath, message: "\(error)")
        }
    }

    /// The attached base bundle's tile at `t` (XYZ), or nil.
    public func baseTile(_ t: TileID) throws(TileStoreError) -> Data? {
        do {
            return try db.read { db in
                try Data.fetchOne(
                    db,
                    sql: """
                        SELECT i.tile_data FROM base.map m JOIN base.images i ON i.tile_id = m.tile_id
                        WHERE m.zoom_level = ? AND m.tile_column = ? AND m.tile_row = ?
                        """, arguments: [t.z, t.x, t.tmsY])
            }
        } catch { throw .sqlite(path: temporaryPath, message: "\(error)") }
    }

    /// Copies the base bundle's tiles in `ranges` (XYZ); the counts of what was copied.
    static func copyKept(_ ranges: [TileRange], _ db: Database) throws -> BundleWriteStats {
        var d = BundleWriteStats()
        guard !ranges.isEmpty else { return d }
        let images = try db.cachedStatement(
            sql: """
                INSERT OR IGNORE INTO main.images (tile_id, tile_data)
                SELECT i.tile_id, i.tile_data FROM base.map m JOIN base.images i ON i.tile_id = m.tile_id
                WHERE m.zoom_level = ? AND m.tile_column BETWEEN ? AND ? AND m.tile_row BETWEEN ? AND ?
                """)
        let map = try db.cachedStatement(
            sql: """
                INSERT OR REPLACE INTO main.map (zoom_level, tile_column, tile_row, tile_id)
                SELECT zoom_level, tile_column, tile_row, tile_id FROM base.map
                WHERE zoom_level = ? AND tile_column BETWEEN ? AND ? AND tile_row BETWEEN ? AND ?
                """)
        for r in ranges {
            let n = 1 << r.z
            let args: StatementArguments = [r.z, r.minX, r.maxX, n - 1 - r.maxY, n - 1 - r.minY]
            try images.execute(arguments: args)
            d.uniqueImages += db.changesCount
            try map.execute(arguments: args)
            d.tiles += db.changesCount
            d.tilesPerZoom[r.z, default: 0] += db.changesCount
            d.keptTiles += db.changesCount
        }
        return d
    }

    /// Against the attached base: tiles only in this bundle, only in the base, and in both with
    /// other bytes. Also makes the counts exact (copies count no bytes). Detaches the base.
    public func compareWithBase() throws(TileStoreError) -> (added: Int, removed: Int, changed: Int) {
        do {
            let (result, counts) = try db.writeWithoutTransaction { db -> ((Int, Int, Int), BundleWriteStats) in
                let added =
                    try Int.fetchOne(
                        db,
                        sql: """
                            SELECT COUNT(*) FROM main.map m WHERE NOT EXISTS (SELECT 1 FROM base.map b
                            WHERE b.zoom_level = m.zoom_level AND b.tile_column = m.tile_column AND b.tile_row = m.tile_row)
                            """) ?? 0
                let removed =
                    try Int.fetchOne(
                        db,
                        sql: """
                            SELECT COUNT(*) FROM base.map b WHERE NOT EXISTS (SELECT 1 FROM main.map m
                            WHERE b.zoom_level = m.zoom_level AND b.tile_column = m.tile_column AND b.tile_row = m.tile_row)
                            """) ?? 0
                let changed =
                    try Int.fetchOne(
                        db,
                        sql: """
                            SELECT COUNT(*) FROM main.map m JOIN base.map b ON b.zoom_level = m.zoom_level
                            AND b.tile_column = m.tile_column AND b.tile_row = m.tile_row WHERE b.tile_id != m.tile_id
                            """) ?? 0
                try db.execute(sql: "DETACH DATABASE base")
                return ((added, removed, changed), try BundleWriter.stats(db))
            }
            state.withLock { s in
                let kept = s.keptTiles
                s = counts
                s.keptTiles = kept
            }
            return result
        } catch {
            throw .sqlite(path: temporaryPath, message: "\(error)")
        }
    }
}
