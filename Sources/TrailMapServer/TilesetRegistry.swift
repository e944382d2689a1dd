import Foundation
import Logging
import Synchronization
import TileCache
import TileGeometry

/// The bundles (`.mbtiles`) and archives (`.pmtiles`) of one folder, kept in step with the
/// folder: `refresh()` opens added files, drops removed ones and swaps replaced ones. A swapped-out tileset stays alive while requests
/// in flight hold it, so none of them fails.
public final class TilesetRegistry: Sendable {
    public let directory: String
    private let state = Mutex<State>(State())
    private let logger: Logger
    /// The tile cache, the bundle manager that opens the tilesets' bundles, pressure and prefetch.
    public let cache: CacheSystem
    /// The trails of served bundles, for the prefetch predictor.
    let trailPaths: TrailPathsShelf

    struct State {
        var tilesets: [String: Tileset] = [:]
        /// Ids of bundles removed while being served: they answer 503 until they come back.
        var removed: Set<String> = []
        /// Ids served from `.mbtiles` while a `.pmtiles` of the same name is ignored (warned once).
        var clashes: Set<String> = []
        /// The last listing of the folder failed while the folder was there (logged once).
        var listingFailed = false
    }

    /// What a lookup found.
    public enum Lookup: Sendable {
        case found(Tileset)
        case removed
        case unknown
    }

    public init(directory: String, logger: Logger = Logger(label: "trailmap.tilesets"), cache: CacheSystem = CacheSystem()) {
        self.directory = directory
        self.logger = logger
        self.cache = cache
        trailPaths = TrailPathsShelf(cache: cache, logger: logger)
    }

    /// The tileset with that id.
    public func lookup(_ id: String) -> Lookup {
        state.withLock { s in
            if let t = s.tilesets[id] { return .found(t) }
            return s.removed.contains(id) ? .removed : .unknown
        }
    }

    /// All tilesets, sorted by id.
    public var all: [Tileset] {
        state.withLock { Array($0.tilesets.values) }.sorted { $0.id < $1.id }
    }

    /// Rescans the folder and does the cache's upkeep (pressure, idle bundles). Returns the number
    /// of changes (added, removed, replaced).
    @discardableResult
    public func refresh() -> Int {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory)
            state.withLock { $0.listingFailed = false }
        } catch {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
                return apply(names: [])
            }
            // The folder is there but could not be listed (out of file descriptors or memory):
            // that says nothing of its tilesets, which stay as they were until a listing succeeds.
            let first = state.withLock { s -> Bool in
                defer { s.listingFailed = true }
                return !s.listingFailed
            }
            if first {
                logger.warning("the tiles folder \(directory) could not be listed (\(error)); its tilesets are served as they were")
            }
            cache.tick()
            return 0
        }
        return apply(names: names)
    }

    /// Serves the tilesets of `names`, the folder's listing: opens new and changed ones, retires
    /// those gone. Returns the number of changes.
    private func apply(names: [String]) -> Int {
        // Per id, the served file: the first of TilesetFile.extensions present.
        var found = [String: (path: String, identity: FileIdentity, rank: Int)]()
        var clashes = Set<String>()
        for name in names {
            guard let (id, ext) = TilesetFile.parse(name), let rank = TilesetFile.extensions.firstIndex(of: ext) else { continue }
            let path = (directory as NSString).appendingPathComponent(name)
            guard let identity = FileIdentity(path: path) else { continue }
            if let other = found[id] {
                clashes.insert(id)
                if other.rank < rank { continue }
            }
            found[id] = (path, identity, rank)
        }
        warnAboutClashes(clashes, found: found.mapValues(\.path))
        defer { cache.tick() }
        let current = state.withLock { $0.tilesets.mapValues(\.identity) }
        // Open new and changed bundles outside the lock.
        var opened = [String: Tileset]()
        for (id, (path, identity, _)) in found where current[id] != identity {
            let t = Tileset(id: id, path: path, identity: identity, bundles: cache.bundles)
            if let failure = t.failure {
                logger.warning("tileset \(id) cannot be served: \(failure)")
            } else {
                logger.info("\(current[id] == nil ? "added" : "reloaded") tileset \(id) from \(path)")
            }
            opened[id] = t
        }
        let gone = current.keys.filter { found[$0] == nil }
        for id in gone { logger.info("tileset \(id) was removed") }
        let retired = state.withLock { s -> [Tileset] in
            var retired = [Tileset]()
            for (id, t) in opened {
                if let old = s.tilesets.updateValue(t, forKey: id) { retired.append(old) }
                s.removed.remove(id)
            }
            for id in gone {
                if let old = s.tilesets.removeValue(forKey: id) { retired.append(old) }
                s.removed.insert(id)
            }
            return retired
        }
        // Their connections close (requests in flight keep theirs) and their cached tiles go.
        for t in retired {
            trailPaths.forget(t)
            if let b = t.bundle { cache.bundles.unregister(b) }
        }
        for t in opened.values where t.failure == nil { trailPaths.load(t) }
        return opened.count + gone.count
    }

    /// Logs each name clash once, when it appears.
    private func warnAboutClashes(_ clashes: Set<String>, found: [String: String]) {
        let new = state.withLock { s -> Set<String> in
            defer { s.clashes = clashes }
            return clashes.subtracting(s.clashes)
        }
        for id in new.sorted() {
            logger.warning(
                """
                tileset \(id): both \(id).mbtiles and \(id).pmtiles are in the tiles folder; serving \(found[id] ?? id), ignoring the \
                other
                """
            )
        }
    }

    /// A tile of a tileset through the cache (one bundle read for concurrent misses); with a
    /// client, the tiles predicted to follow are prefetched in the background.
    func cachedTile(_ tileset: Tileset, _ tile: TileID, client: String?, milliseconds: UInt64? = nil) throws -> CachedTile? {
        guard let bundle = tileset.bundle else { return nil }
        let key = TileKey(bundle: bundle.id, tile: tile)
        let found = try cache.cache.tile(key) { try tileset.read(tile) }
        if found != nil, let client, let prefetcher = cache.prefetcher {
            // A prediction never reopens a bundle closed meanwhile: under a tight budget that
            // churned bundles (and their reservations) for tiles nobody had asked for yet.
            let bundles = cache.bundles
            let now = cache.configuration.predictorClock?.milliseconds ?? milliseconds ?? PrefetchPredictor.milliseconds()
            let keys = prefetcher.plan(client: client, key: key, now: now, within: { tileset.hasZoom($0.tile.z) })
            if !keys.isEmpty {
                prefetcher.schedule(keys) { k in bundles.isOpen(bundle) ? try tileset.read(k.tile) : nil }
            }
        }
        return found
    }
}
