import Synchronization

/// The cache as a server runs it: the tile cache, the bundle manager whose open bundles count
/// against its budget, the memory-pressure monitor and (when on) the prefetcher, with the
/// periodic upkeep (`tick`) that polls pressure and closes idle bundles.
public final class CacheSystem: Sendable {
    public let configuration: CacheConfiguration
    public let cache: TileCache
    public let bundles: BundleManager
    public let pressure: MemoryPressureMonitor
    /// nil when prefetch is off.
    public let prefetcher: Prefetcher?
    private let lastPoll = Mutex<ContinuousClock.Instant?>(nil)

    public init(_ configuration: CacheConfiguration = CacheConfiguration()) {
        self.configuration = configuration
        // With prefetch on, the cache counts requests per neighbourhood for the predictor too.
        cache = TileCache(
            budget: configuration.budget, policy: configuration.policy,
            countsRequests: configuration.policy == .gdsf || configuration.prefetch)
        bundles = BundleManager(
            maxOpen: configuration.maxOpenBundles, idleTimeout: configuration.bundleIdleTimeout,
            bundleCost: configuration.bundleCost, cache: cache)
        pressure = MemoryPressureMonitor(settings: configuration.pressure, cache: cache, bundles: bundles)
        prefetcher = configuration.prefetch ? Prefetcher(cache: cache) : nil
    }

    /// Upkeep, called often (every rescan of the tiles folder): polls memory pressure when its
    /// interval has passed and closes bundles idle for longer than the timeout.
    public func tick(now: ContinuousClock.Instant = .now) {
        let due = lastPoll.withLock { last -> Bool in
            if let l = last, now - l < configuration.pressure.interval { return false }
            last = now
            return true
        }
        if due { pressure.poll() }
        bundles.closeIdle(now: now)
    }

    /// Live figures for `/admin/cache` and `/metrics`.
    public var snapshot: CacheSnapshot {
        let status = pressure.status
        let counts = bundles.counts
        return CacheSnapshot(
            statistics: cache.statistics, level: status.level, measuredLevel: status.measured,
            forcedLevel: status.forced, reading: status.reading, openBundles: bundles.openCount,
            maxOpenBundles: bundles.maxOpen, bundleOpens: counts.opens, bundleCloses: counts.closes,
            prefetch: prefetcher != nil, sessions: prefetcher?.predictor.sessions)
    }
}

/// Everything the cache reports at one moment.
public struct CacheSnapshot: Sendable {
    public var statistics: CacheStatistics
    public var level: MemoryPressureLevel
    public var measuredLevel: MemoryPressureLevel
    public var forcedLevel: MemoryPressureLevel?
    public var reading: MemoryReading
    public var openBundles: Int
    public var maxOpenBundles: Int
    public var bundleOpens: Int
    public var bundleCloses: [EvictionReason: Int]
    public var prefetch: Bool
    /// The predictor's sessions; nil when prefetch is off.
    public var sessions: PrefetchPredictor.SessionCounts?
}
