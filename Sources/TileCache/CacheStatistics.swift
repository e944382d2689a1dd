/// Why entries left the cache.
public enum EvictionReason: String, Sendable, CaseIterable {
    /// Room for a new entry within the budget.
    case capacity
    /// A memory-pressure level asked for memory back.
    case pressure
    /// A bundle closed after being idle, or was replaced or removed.
    case idle
}

/// A snapshot of the cache's figures.
public struct CacheStatistics: Sendable, Equatable {
    /// The configured byte budget.
    public var budget = 0
    /// What tiles may hold now: the budget, shrunk under pressure, less open bundles' share.
    public var capacity = 0
    /// Bytes held by tile entries (payload and overhead).
    public var bytes = 0
    /// Bytes reserved for open bundles.
    public var reservedBytes = 0
    public var entries = 0
    public var hits = 0
    public var misses = 0
    /// Misses that waited for another request's read of the same tile instead of reading.
    public var joins = 0
    /// Reads of a bundle made on behalf of the cache (misses and prefetches).
    public var loads = 0
    public var evictions: [EvictionReason: Int] = [:]
    public var prefetchesIssued = 0
    /// Prefetched tiles later read by a client.
    public var prefetchesUsed = 0
    /// Prefetched tiles not admitted (no cold entry to make room).
    public var prefetchesRejected = 0
    public var policy = ""
    /// Tiles (held or not) that sessions asking for their viewport again give a chance of being
    /// asked for at their next step.
    public var chanceKeys = 0
    /// Bytes held by tiles kept for their chance (nil for a policy that weighs no chances).
    public var likelyBytes: Int?

    public init() {}

    /// Hits over hits and misses (0 when nothing was asked).
    public var hitRatio: Double { hits + misses == 0 ? 0 : Double(hits) / Double(hits + misses) }
}
