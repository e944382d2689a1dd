/// How a new entry enters the cache.
public enum AdmissionPriority: Sendable {
    /// A tile a client asked for.
    case demand
    /// A predicted tile: it may only displace entries that were never used since they came in.
    case prefetch
}

/// An eviction (and admission) policy over keys with byte costs. The cache owns the entries and
/// the byte count; the policy only orders keys. Implementations are value types mutated under
/// the cache's lock.
public protocol EvictionPolicy<Key>: Sendable {
    associatedtype Key: Hashable & Sendable

    /// A short name for reports (`lru`, `sieve`, `s3fifo`, `gdsf`).
    var name: String { get }
    /// The byte capacity the cache holds entries to (queue sizes of some policies depend on it).
    mutating func setCapacity(_ bytes: Int)
    /// A resident key was read.
    mutating func recordHit(_ key: Key)
    /// A key became resident.
    mutating func insert(_ key: Key, cost: Int, priority: AdmissionPriority)
    /// A resident key is leaving for a reason of the cache's own (pressure, invalidation).
    mutating func remove(_ key: Key)
    /// Picks the next victim and forgets it; nil when the policy holds nothing.
    mutating func evict() -> Key?
    /// Like `evict`, but only a key never read since it came in; nil (nothing evicted) otherwise.
    /// Prefetched tiles get room this way only, so they never push out tiles in use.
    mutating func evictCold() -> Key?
    /// A key became resident in a neighbourhood whose tiles drew `popularity` requests each
    /// lately (decayed, all clients). Policies that ignore popularity keep the default (`insert`).
    mutating func insert(_ key: Key, cost: Int, priority: AdmissionPriority, popularity: Double)
    /// The chance (summed over sessions) that a key is asked for at its session's next step; a
    /// key held or not (0: none). Policies that ignore chances keep the default.
    mutating func setChance(_ key: Key, _ chance: Double)
    /// Like `evictCold`, for a prediction worth `score` (its chance per byte): policies that
    /// weigh chances let it displace only keys worth less; the default is `evictCold`.
    mutating func evict(below score: Double) -> Key?
    /// Bytes held by keys kept for their chance, for a policy that weighs chances; nil otherwise.
    var likelyHolding: Int? { get }
}

extension EvictionPolicy {
    public mutating func setChance(_ key: Key, _ chance: Double) {}

    public mutating func evict(below score: Double) -> Key? { evictCold() }

    public var likelyHolding: Int? { nil }

    public mutating func insert(_ key: Key, cost: Int, priority: AdmissionPriority, popularity: Double) {
        insert(key, cost: cost, priority: priority)
    }
}

/// The policies the cache implements, for configuration and the trace benchmark.
public enum PolicyKind: String, Sendable, CaseIterable {
    case lru
    case sieve
    case s3fifo
    case gdsf

    /// A new, empty policy of this kind.
    public func make<Key: Hashable & Sendable>(capacity: Int, keyType: Key.Type = Key.self) -> any EvictionPolicy<Key> {
        switch self {
        case .lru: LRUPolicy<Key>()
        case .sieve: SIEVEPolicy<Key>()
        case .s3fifo: S3FIFOPolicy<Key>(capacity: capacity)
        case .gdsf: GDSFPolicy<Key>()
        }
    }
}
