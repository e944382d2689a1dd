/// Settings of the tile cache, its bundle manager, pressure monitor and prefetcher.
public struct CacheConfiguration: Sendable, Equatable {
    /// Bytes the cache may hold: tiles with their overhead plus open bundles' reservations.
    public var budget: Int = 256 << 20
    public var policy: PolicyKind = .gdsf
    /// The most bundles with open connections at once.
    public var maxOpenBundles = 64
    /// Open bundles unused this long close.
    public var bundleIdleTimeout: Duration = .seconds(300)
    /// Bytes each open bundle counts against the budget: its read connections, each with a
    /// `TileReadPool.pageCacheKiB` page cache.
    public var bundleCost = 2 << 20
    public var pressure = PressureSettings()
    public var prefetch = true
    /// Request header naming the client for prefetch (else the remote address).
    public var clientHeader: String?
    /// The time the prefetch predictor reads; nil: the monotonic clock (as requests arrive).
    public var predictorClock: PredictorClock?

    public init() {}
}
