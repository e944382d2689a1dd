import Dispatch
import Logging
import Synchronization
import TileCache
import Trails

/// Hands the prefetch predictor the trails of each served bundle that has them, so sessions
/// panning along a trail are prefetched along its course. A bundle's trails are read in the
/// background when its tileset opens, their memory is reserved from the cache's budget (skipped
/// when the budget cannot spare it), and both are given back when the tileset goes.
final class TrailPathsShelf: Sendable {
    private enum Entry {
        case loading
        case loaded(bytes: Int)
    }

    private let cache: CacheSystem
    private let logger: Logger
    private let entries = Mutex<[UInt32: Entry]>([:])
    private let queue = DispatchQueue(label: "trailmap.trail-paths", qos: .utility)

    init(cache: CacheSystem, logger: Logger) {
        self.cache = cache
        self.logger = logger
    }

    /// Starts reading a tileset's trails (nothing when prefetch is off or it is not an MBTiles bundle).
    func load(_ tileset: Tileset) {
        guard let predictor = cache.prefetcher?.predictor, let bundle = tileset.bundle, tileset.path.hasSuffix(".mbtiles") else { return }
        let id = bundle.id, path = tileset.path, name = tileset.id
        entries.withLock { $0[id] = .loading }
        queue.async { [self] in
            let paths: TrailPaths
            do throws(TrailStoreError) {
                let trails = try TrailIndex(bundle: path).all()
                paths = TrailPaths(lines: trails.flatMap { $0.geometry.parts.map { $0.map { (lon: $0.lon, lat: $0.lat) } } })
            } catch {
                if case .noTrails = error {} else { logger.debug("tileset \(name): trails not read for prefetch: \(error)") }
                entries.withLock { if case .loading = $0[id] { $0[id] = nil } }
                return
            }
            guard paths.lineCount > 0 else {
                entries.withLock { if case .loading = $0[id] { $0[id] = nil } }
                return
            }
            let bytes = paths.approximateBytes
            let kept = entries.withLock { e -> Bool in
                guard case .loading = e[id] else { return false }
                guard cache.cache.reserve(bytes) else {
                    e[id] = nil
                    return false
                }
                e[id] = .loaded(bytes: bytes)
                predictor.setTrailPaths(paths, bundle: id)
                return true
            }
            if kept {
                logger.info("tileset \(name): prefetch follows its \(paths.lineCount) trail lines")
            }
        }
    }

    /// Gives back what a retired tileset's trails held.
    func forget(_ tileset: Tileset) {
        guard let id = tileset.bundle?.id else { return }
        let entry = entries.withLock { $0.removeValue(forKey: id) }
        if case let .loaded(bytes) = entry {
            cache.prefetcher?.predictor.setTrailPaths(nil, bundle: id)
            cache.cache.release(bytes)
        }
    }

    /// Waits until queued reads are done (for tests).
    func drain() { queue.sync {} }

    /// Bundles whose trails steer prefetch now.
    var loadedCount: Int {
        entries.withLock { $0.values.count { if case .loaded = $0 { true } else { false } } }
    }
}
