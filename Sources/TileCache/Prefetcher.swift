import Dispatch
import Synchronization

/// Loads predicted tiles in the background at low priority, through the cache's prefetch
/// admission (which only displaces cold entries). At most `maxPending` loads wait; more
/// predictions are dropped rather than queued, so prefetch never builds a backlog.
public final class Prefetcher: Sendable {
    public let cache: TileCache
    public let predictor: PrefetchPredictor
    public let maxPending: Int
    private let queue = DispatchQueue(label: "trailmap.prefetch", qos: .utility)
    private let pending = Mutex(0)

    public init(cache: TileCache, predictor: PrefetchPredictor = PrefetchPredictor(), maxPending: Int = 256) {
        self.cache = cache
        self.predictor = predictor
        self.maxPending = maxPending
    }

    /// Records a client's request and schedules loads of the tiles predicted to follow.
    /// `load` reads one tile (nil if the bundle lacks it); it runs on the prefetch queue.
    public func observe(client: String, key: TileKey, load: @escaping @Sendable (TileKey) throws -> CachedTile?) {
        let keys = predictor.observe(client: client, key: key).filter { !cache.contains($0) }
        guard !keys.isEmpty else { return }
        let admitted = pending.withLock { p -> Bool in
            guard p < maxPending else { return false }
            p += 1
            return true
        }
        guard admitted else { return }
        queue.async { [self] in
            for k in keys { cache.prefetch(k) { try load(k) } }
            pending.withLock { $0 -= 1 }
        }
    }

    /// Waits until scheduled loads are done (for tests and benchmarks).
    public func drain() {
        queue.sync {}
    }
}
