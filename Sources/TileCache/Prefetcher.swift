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
    /// Predicted tiles that turned out absent from their bundle (empty sea, beyond the edge),
    /// so they are not looked up again on every request near them.
    private let absent = Mutex(RecentKeys(capacity: 4096))

    /// `predictor`: by default one that reads popular places from `cache`'s counts (when it
    /// counts requests).
    public init(cache: TileCache, predictor: PrefetchPredictor? = nil, maxPending: Int = 256) {
        self.cache = cache
        self.predictor = predictor ?? PrefetchPredictor(places: cache)
        self.maxPending = maxPending
    }

    /// Records a client's request and schedules loads of the tiles predicted to follow.
    /// `within` tells cheaply whether a predicted tile can exist (its zoom level is in the bundle);
    /// `load` reads one tile (nil if the bundle lacks it); it runs on the prefetch queue.
    /// `now` is the request's time in milliseconds (`PrefetchPredictor.milliseconds()`).
    public func observe(
        client: String, key: TileKey, now: UInt64 = PrefetchPredictor.milliseconds(),
        within: (TileKey) -> Bool = { _ in true },
        load: @escaping @Sendable (TileKey) throws -> CachedTile?
    ) {
        schedule(plan(client: client, key: key, now: now, within: within), load: load)
    }

    /// Records a client's request and returns the predicted tiles to load: not held, not found
    /// absent lately, most likely first; usually none. `schedule` loads them. (A server calls the
    /// two apart, so a request that predicts nothing makes no loading closure.)
    public func plan(
        client: String, key: TileKey, now: UInt64 = PrefetchPredictor.milliseconds(), within: (TileKey) -> Bool = { _ in true }
    ) -> [TileKey] {
        // The predictions not held may be loaded (one lock, with the chances' changes).
        let predicted = cache.plan(predictor.predict(client: client, key: key, now: now), after: key, within: within)
        guard !predicted.isEmpty else { return [] }
        return absent.withLock { a in predicted.filter { !a.contains($0) } }
    }

    /// Loads `keys` (from `plan`) in the background, unless `maxPending` loads wait already;
    /// `load` reads one tile (nil if the bundle lacks it) on the prefetch queue.
    public func schedule(_ keys: [TileKey], load: @escaping @Sendable (TileKey) throws -> CachedTile?) {
        guard !keys.isEmpty else { return }
        let admitted = pending.withLock { p -> Bool in
            guard p < maxPending else { return false }
            p += 1
            return true
        }
        guard admitted else { return }
        queue.async { [self] in
            for k in keys {
                var missing = false
                cache.prefetch(k) {
                    let tile = try load(k)
                    missing = tile == nil
                    return tile
                }
                if missing { absent.withLock { _ = $0.insert(k) } }
            }
            pending.withLock { $0 -= 1 }
        }
    }

    /// Waits until scheduled loads are done (for tests and benchmarks).
    public func drain() {
        queue.sync {}
    }
}

extension TileCache {
    /// Tells the cache what a request of `key` predicts, under one lock, and returns the predicted
    /// tiles it does not hold (those to load), most likely first (the next zoom levels' last),
    /// `key` excluded. `within` tells whether a predicted tile can exist.
    public func plan(
        _ prediction: PrefetchPredictor.Prediction, after key: TileKey, within: (TileKey) -> Bool = { _ in true }
    ) -> [TileKey] {
        missing(prediction.tiles.filter(within), then: prediction.zoomTiles.filter(within), chances: prediction.chances)
            .filter { $0 != key }
    }
}
