import Essentials
import Foundation
import GRDB
import Synchronization
import TileGeometry

/// Counts of what a writer stored.
public struct BundleWriteStats: Sendable, Equatable {
    /// Tiles addressed (rows of `map`).
    public var tiles = 0
    /// Distinct tile images stored (rows of `images`).
    public var uniqueImages = 0
    /// Bytes of all tiles as addressed (before deduplication).
    public var tileBytes = 0
    /// Bytes actually stored in `images`.
    public var storedBytes = 0
    /// Tiles per zoom level.
    public var tilesPerZoom: [Int: Int] = [:]
    /// Tiles copied from an update's base bundle (`add(kept:)`).
    public var keptTiles = 0
}

/// Writes a new MBTiles bundle crash-safely: everything goes into a hidden temporary file beside
/// the destination, which is renamed over it only by `finish`, after the data is on disk.
/// A process killed at any moment leaves at most a temporary file, never a bundle: a plain writer's
/// `.NAME.PID.building` (deleted by the next writer), or a resumable writer's `.NAME.building`,
/// which the next build with the same fingerprint continues (`BundleWriter.resumable`).
public final class BundleWriter: Sendable {
    /// The bundle's final path.
    public let path: String
    /// The temporary file written until `finish`.
    public let temporaryPath: String
    let db: DatabaseQueue
    let state: Mutex<BundleWriteStats>
    /// A resumable writer's lock on `.NAME.building.lock`: one build at a time writes the file.
    let lock: FileLock?
    /// Whether the file held tiles when the writer took it over (a resumed build): a tile may
    /// be written again (those of a unit cut short), which replaces it and is not counted twice.
    let mayHoldTiles: Bool

    init(
        path: String, temporaryPath: String, db: DatabaseQueue, stats: BundleWriteStats, lock: FileLock?,
        mayHoldTiles: Bool = false
    ) {
        self.mayHoldTiles = mayHoldTiles
        self.path = path
        self.temporaryPath = temporaryPath
        self.db = db
        self.state = Mutex(stats)
        self.lock = lock
    }

    /// A plain writer: creates the temporary file and the schema; removes stale temporaries of dead builds.
    public convenience init(path: String) throws(TileStoreError) {
        try BundleWriter.checkDestination(path)
        BundleWriter.removeStaleTemporaries(for: path)
        let temporaryPath = BundleWriter.temporaryPath(for: path, pid: getpid())
        try? FileManager.default.removeItem(atPath: temporaryPath)
        let db: DatabaseQueue
        do {
            var config = Configuration()
            config.journalMode = .default
            db = try DatabaseQueue(path: temporaryPath, configuration: config)
            try db.writeWithoutTransaction { db in
                // The temporary file is discarded if anything goes wrong, so no journal is needed.
                try db.execute(sql: "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; PRAGMA page_size = 4096;")
                try db.execute(sql: BundleSchema.create)
            }
        } catch {
            try? FileManager.default.removeItem(atPath: temporaryPath)
            throw .cannotCreate(path: path, reason: "\(error)")
        }
        self.init(path: path, temporaryPath: temporaryPath, db: db, stats: BundleWriteStats(), lock: nil)
    }

    /// Checks, without writing, that a bundle can be created at `path`: its folder exists and is
    /// writable, and `path` is not a folder.
    public static func checkDestination(_ path: String) throws(TileStoreError) {
        let dir = URL(fileURLWithPath: path).deletingLastPathComponent().path
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: dir, isDirectory: &isDir), isDir.boolValue else {
            throw .cannotCreate(path: path, reason: "folder \(dir) does not exist")
        }
        guard access(dir, W_OK) == 0 else {
            throw .cannotCreate(path: path, reason: "folder \(dir) is not writable")
        }
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDir), isDir.boolValue {
            throw .cannotCreate(path: path, reason: "a folder of that name exists")
        }
    }

    /// `DIR/.NAME.PID.building` for a destination `DIR/NAME`.
    static func temporaryPath(for path: String, pid: Int32) -> String {
        let url = URL(fileURLWithPath: path)
        return url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).\(pid).building").path
    }

    /// Deletes `.NAME.PID.building` files beside `path` whose process is gone.
    static func removeStaleTemporaries(for path: String) {
        let url = URL(fileURLWithPath: path)
        let dir = url.deletingLastPathComponent()
        let prefix = ".\(url.lastPathComponent)."
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: dir.path) else { return }
        for name in names where name.hasPrefix(prefix) && name.hasSuffix(".building") {
            let pidText = name.dropFirst(prefix.count).dropLast(".building".count)
            guard let pid = Int32(pidText) else { continue }
            if pid != getpid(), kill(pid, 0) == -1, errno == ESRCH {
                try? FileManager.default.removeItem(at: dir.appendingPathComponent(name))
            }
        }
    }

    /// What has been written so far.
    public var stats: BundleWriteStats { state.withLock { $0 } }

    /// Adds tiles in one transaction; identical images are stored once. `units` are recorded as
    /// finished in the same transaction (a resumable writer's journal).
    /// `kept`: ranges whose tiles are copied from the base bundle (`attachBase`) as they are.
    public func add(
        _ batch: [(tile: TileID, data: [UInt8])], units: [BuildUnitRecord] = [],
        kept: [TileRange] = []
    ) throws(TileStoreError) {
        guard !batch.isEmpty || !units.isEmpty || !kept.isEmpty else { return }
        do {
            let delta = try db.write { db -> BundleWriteStats in
                var copied = try BundleWriter.copyKept(kept, db)
                if !units.isEmpty {
                    let unit = try db.cachedStatement(
                        sql: "INSERT OR REPLACE INTO trailmap_units (band, zoom_level, x, y, root) VALUES (?, ?, ?, ?, ?)")
                    for u in units {
                        try unit.execute(arguments: [u.unit.band, u.unit.tile.z, u.unit.tile.x, u.unit.tile.y, u.root.map { Data($0) }])
                    }
                }
                var d = BundleWriteStats()
                let image = try db.cachedStatement(sql: "INSERT OR IGNORE INTO images (tile_id, tile_data) VALUES (?, ?)")
                let map = try db.cachedStatement(
                    sql: "INSERT OR REPLACE INTO map (zoom_level, tile_column, tile_row, tile_id) VALUES (?, ?, ?, ?)")
                let existing =
                    mayHoldTiles
                    ? try db.cachedStatement(
                        sql: """
                            SELECT length(i.tile_data) FROM map m JOIN images i ON i.tile_id = m.tile_id
                            WHERE m.zoom_level = ? AND m.tile_column = ? AND m.tile_row = ?
                            """) : nil
                for (tile, bytes) in batch {
                    let id = TileHash.id(bytes)
                    let before = try existing.flatMap { try Int.fetchOne($0, arguments: [tile.z, tile.x, tile.tmsY]) }
                    try image.execute(arguments: [id, Data(bytes)])
                    if db.changesCount > 0 {
                        d.uniqueImages += 1
                        d.storedBytes += bytes.count
                    }
                    try map.execute(arguments: [tile.z, tile.x, tile.tmsY, id])
                    d.tileBytes += bytes.count - (before ?? 0)
                    if before == nil {
                        d.tiles += 1
                        d.tilesPerZoom[tile.z, default: 0] += 1
                    }
                }
                copied.tiles += d.tiles
                copied.uniqueImages += d.uniqueImages
                copied.tileBytes += d.tileBytes
                copied.storedBytes += d.storedBytes
                copied.tilesPerZoom.merge(d.tilesPerZoom, uniquingKeysWith: +)
                return copied
            }
            state.withLock { s in
                s.tiles += delta.tiles
                s.uniqueImages += delta.uniqueImages
                s.tileBytes += delta.tileBytes
                s.storedBytes += delta.storedBytes
                s.tilesPerZoom.merge(delta.tilesPerZoom, uniquingKeysWith: +)
                s.keptTiles += delta.keptTiles
            }
        } catch {
            throw .sqlite(path: temporaryPath, message: "\(error)")
        }
    }

    /// Writes the metadata and `record` (the `trailmap_build` pairs, when given), drops the unit
    /// journal unless `keepUnits` (shard parts keep it for the merge), makes the file durable and
    /// renames it to `path`.
    public func finish(
        metadata: BundleMetadata, record: [String: String] = [:], keepUnits: Bool = false
    ) throws(TileStoreError) -> BundleWriteStats {
        do {
            try db.write { db in
                let stmt = try db.makeStatement(sql: "INSERT OR REPLACE INTO metadata (name, value) VALUES (?, ?)")
                for (k, v) in metadata.pairs.sorted(by: { $0.key < $1.key }) {
                    try stmt.execute(arguments: [k, v])
                }
                if !record.isEmpty {
                    try db.execute(sql: BuildJournalSchema.create)
                    let r = try db.makeStatement(sql: "INSERT OR REPLACE INTO trailmap_build (name, value) VALUES (?, ?)")
                    for (k, v) in record.sorted(by: { $0.key < $1.key }) { try r.execute(arguments: [k, v]) }
                }
                if !keepUnits, try db.tableExists("trailmap_units") { try db.execute(sql: "DROP TABLE trailmap_units") }
            }
            try db.writeWithoutTransaction { db in
                // Gives back the pages of the dropped journal (resumable files use incremental auto-vacuum).
                try db.execute(sql: "PRAGMA incremental_vacuum")
                try db.execute(sql: "PRAGMA journal_mode = DELETE")
            }
            try db.close()
        } catch {
            abandon()
            throw .sqlite(path: temporaryPath, message: "\(error)")
        }
        guard BundleWriter.fsync(path: temporaryPath) else {
            abandon()
            throw .cannotCreate(path: path, reason: "cannot flush \(temporaryPath) to disk: \(String(cString: strerror(errno)))")
        }
        guard rename(temporaryPath, path) == 0 else {
            let reason = String(cString: strerror(errno))
            abandon()
            throw .cannotCreate(path: path, reason: "cannot rename the finished file into place: \(reason)")
        }
        _ = BundleWriter.fsync(path: URL(fileURLWithPath: path).deletingLastPathComponent().path)
        releaseLock()
        return stats
    }

    /// Gives up: closes and deletes the temporary file.
    public func abandon() {
        try? db.close()
        BundleWriter.removePartial(temporaryPath)
        releaseLock()
    }

    static func fsync(path: String) -> Bool {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        return Foundation.fsync(fd) == 0
    }
}
