import Synchronization

/// A cache of encoded tiles with a fixed byte budget. Entries and their overhead
/// (`CachedTile.cost`) plus reservations of open bundles never exceed the budget: every change
/// happens under one lock, which also makes the hit path synchronous and cheap (no actor hop).
/// Concurrent misses of one tile share one read (single flight); the eviction policy is
/// pluggable (`PolicyKind`).
public final class TileCache: Sendable {
    /// The byte budget.
    public let budget: Int
    private let state: Mutex<State>

    struct Entry {
        var tile: CachedTile
        var cost: Int
        var prefetched: Bool
    }

    struct State {
        var entries: [TileKey: Entry] = [:]
        var policy: any EvictionPolicy<TileKey>
        var bytes = 0
        var reserved = 0
        var fraction = 1.0
        var flights: [TileKey: Flight] = [:]
        var stats = CacheStatistics()
        /// Requests per neighbourhood (hits and misses, all clients), weighing admissions and
        /// read by a predictor sharing them.
        var places: Popularity
        var requests = 0
        /// Whether the policy weighs popularity.
        var weighsPopularity = false
        /// Whether requests are counted per neighbourhood (for the policy or a predictor).
        var countsRequests = false
        /// The chance, summed over sessions, that each key (held or not) is asked for at its
        /// session's next step (`PrefetchPredictor.Prediction.chances`), and the count of
        /// changes (`chanceTick`) when it last changed.
        var chances: [TileKey: (chance: Double, tick: Int)] = [:]
        var chanceTick = 0

        func capacity(budget: Int) -> Int { max(0, Int(Double(budget) * fraction) - reserved) }
    }

    /// Requests (all clients) after which a neighbourhood's count of requests is halved, by default.
    public static let defaultPopularityHalfLife = 100_000

    /// Whether requests are counted per neighbourhood (`popularity(bundle:z:x:y:)`).
    public let countsRequests: Bool

    /// A cache of `budget` bytes evicting by `policy`. Each request counts in its tile's
    /// neighbourhood (4x4 tiles of one zoom), halved every `popularityHalfLife` requests, when
    /// `countsRequests` (by default: when the policy weighs popularity); a policy that weighs
    /// popularity (GDSF) credits a tile coming in with it.
    public convenience init(
        budget: Int, policy: PolicyKind = .gdsf, popularityHalfLife: Int = TileCache.defaultPopularityHalfLife,
        countsRequests: Bool? = nil
    ) {
        self.init(
            budget: budget, policy: policy.make(capacity: max(0, budget), keyType: TileKey.self), weighsPopularity: policy == .gdsf,
            popularityHalfLife: popularityHalfLife, countsRequests: countsRequests)
    }

    /// A cache of `budget` bytes evicting by a GDSF policy of given weights (the default policy
    /// with other settings, for comparisons), otherwise as `init(budget:policy:...)` with `.gdsf`.
    public convenience init(
        budget: Int, gdsf: GDSFPolicy<TileKey>, popularityHalfLife: Int = TileCache.defaultPopularityHalfLife,
        countsRequests: Bool? = nil
    ) {
        self.init(
            budget: budget, policy: gdsf, weighsPopularity: true, popularityHalfLife: popularityHalfLife,
            countsRequests: countsRequests)
    }

    private init(
        budget: Int, policy: any EvictionPolicy<TileKey>, weighsPopularity: Bool, popularityHalfLife: Int, countsRequests: Bool?
    ) {
        self.budget = max(0, budget)
        var s = State(policy: policy, places: Popularity(halfLife: popularityHalfLife))
        s.weighsPopularity = weighsPopularity
        s.countsRequests = countsRequests ?? s.weighsPopularity
        self.countsRequests = s.countsRequests
        s.stats.policy = policy.name
        s.stats.budget = max(0, budget)
        state = Mutex(s)
    }

    /// The tile if held (a hit), without loading; nil otherwise (not counted as a miss).
    public func cached(_ key: TileKey) -> CachedTile? {
        state.withLock { s in Self.hit(key, &s) }
    }

    /// The tile, from memory or from `load` (called on this thread; concurrent callers for the
    /// same key wait for the first one's read). nil when the bundle has no such tile.
    public func tile(_ key: TileKey, load: () throws -> CachedTile?) throws -> CachedTile? {
        enum Step { case hit(CachedTile), join(Flight), lead(Flight) }
        let step: Step = state.withLock { s in
            if let t = Self.hit(key, &s) { return .hit(t) }
            s.stats.misses += 1
            Self.count(key, &s)
            if let f = s.flights[key] {
                s.stats.joins += 1
                return .join(f)
            }
            let f = Flight()
            s.flights[key] = f
            s.stats.loads += 1
            return .lead(f)
        }
        switch step {
        case let .hit(t): return t
        case let .join(f): return try f.wait()
        case let .lead(f): return try lead(key, flight: f, priority: .demand, load: load)
        }
    }

    /// Loads a predicted tile at low priority unless held or loading: admitted only into room
    /// that cold entries make. Returns whether a load happened.
    @discardableResult
    public func prefetch(_ key: TileKey, load: () throws -> CachedTile?) -> Bool {
        let flight: Flight? = state.withLock { s in
            guard s.entries[key] == nil, s.flights[key] == nil else { return nil }
            let f = Flight()
            s.flights[key] = f
            s.stats.loads += 1
            s.stats.prefetchesIssued += 1
            return f
        }
        guard let flight else { return false }
        _ = try? lead(key, flight: flight, priority: .prefetch, load: load)
        return true
    }

    private func lead(
        _ key: TileKey, flight: Flight, priority: AdmissionPriority,
        load: () throws -> CachedTile?
    ) throws -> CachedTile? {
        let result = Result { try load() }
        state.withLock { s in
            s.flights[key] = nil
            if case let .success(tile?) = result { Self.admit(key, tile, priority, &s, budget: budget) }
        }
        flight.finish(result)
        return try result.get()
    }

    /// The keys of `keys`, then of `then`, not held, in order (those a prefetch may load), under
    /// one lock, after applying `chances` (changes of the chance that sessions ask for a key at
    /// their next step, `PrefetchPredictor.Prediction.chances`).
    public func missing(
        _ keys: [TileKey], then: [TileKey] = [], chances: [(key: TileKey, change: Double)] = []
    ) -> [TileKey] {
        guard !keys.isEmpty || !then.isEmpty || !chances.isEmpty else { return [] }
        return state.withLock { s in
            if !chances.isEmpty { Self.change(chances, &s) }
            let first = keys.filter { s.entries[$0] == nil }
            return then.isEmpty ? first : first + then.filter { s.entries[$0] == nil }
        }
    }

    /// The decayed requests (all clients) of the neighbourhood (4x4 tiles) holding tile x, y at
    /// zoom z of a bundle; 0 when requests are not counted (`countsRequests`).
    public func popularity(bundle: UInt32, z: Int, x: Int, y: Int) -> Double {
        state.withLock { $0.places.count(bundle: bundle, z: z, x: x, y: y) }
    }

    /// `popularity(bundle:z:x:y:)` of several tiles of one zoom, under one lock.
    public func popularity(bundle: UInt32, z: Int, tiles: [(x: Int, y: Int)]) -> [Double] {
        state.withLock { s in tiles.map { s.places.count(bundle: bundle, z: z, x: $0.x, y: $0.y) } }
    }

    /// Whether a key is held (no hit counted).
    public func contains(_ key: TileKey) -> Bool { state.withLock { $0.entries[key] != nil } }

    /// Current figures.
    public var statistics: CacheStatistics {
        state.withLock { s in
            var st = s.stats
            st.bytes = s.bytes
            st.reservedBytes = s.reserved
            st.entries = s.entries.count
            st.capacity = s.capacity(budget: budget)
            st.chanceKeys = s.chances.count
            st.likelyBytes = s.policy.likelyHolding
            return st
        }
    }

    /// Bytes tiles may use now.
    public var capacity: Int { state.withLock { $0.capacity(budget: budget) } }

    /// Limits tiles to `fraction` of the budget (under memory pressure; 1 restores), evicting
    /// down to it now.
    public func setFraction(_ fraction: Double) {
        state.withLock { s in
            s.fraction = min(1, max(0, fraction))
            Self.fit(&s, budget: budget, reason: .pressure)
        }
    }

    /// Drops every entry (critical memory pressure). Loads in flight still answer their callers.
    public func removeAll(reason: EvictionReason = .pressure) {
        state.withLock { s in
            for key in s.entries.keys { s.policy.remove(key) }
            s.stats.evictions[reason, default: 0] += s.entries.count
            s.entries.removeAll()
            s.bytes = 0
        }
    }

    /// Drops the entries of one bundle (closed, replaced or removed).
    public func removeAll(bundle: UInt32, reason: EvictionReason = .idle) {
        state.withLock { s in
            let keys = s.entries.keys.filter { $0.bundle == bundle }
            for key in keys { Self.drop(key, &s, reason: reason) }
        }
    }

    /// Sets aside bytes for something else held in memory (an open bundle), evicting tiles to
    /// make room. Fails, reserving nothing, when the budget cannot hold it even empty.
    public func reserve(_ bytes: Int) -> Bool {
        state.withLock { s in
            guard s.reserved + bytes <= budget else { return false }
            s.reserved += bytes
            Self.fit(&s, budget: budget, reason: .capacity)
            return true
        }
    }

    /// Gives back a reservation.
    public func release(_ bytes: Int) {
        state.withLock { s in s.reserved = max(0, s.reserved - bytes) }
    }

    // MARK: - Under the lock

    private static func hit(_ key: TileKey, _ s: inout State) -> CachedTile? {
        // By index: the entry is read in place, not copied (a copy retains its tile's storage).
        guard let i = s.entries.index(forKey: key) else { return nil }
        s.stats.hits += 1
        count(key, &s)
        s.policy.recordHit(key)
        if s.entries.values[i].prefetched {
            s.stats.prefetchesUsed += 1
            s.entries.values[i].prefetched = false
        }
        return s.entries.values[i].tile
    }

    private static func admit(_ key: TileKey, _ tile: CachedTile, _ priority: AdmissionPriority, _ s: inout State, budget: Int) {
        let cost = tile.cost
        let capacity = s.capacity(budget: budget)
        if s.entries[key] != nil { drop(key, &s, reason: .capacity, counted: false) }
        guard cost <= capacity else {
            if priority == .prefetch { s.stats.prefetchesRejected += 1 }
            return
        }
        s.policy.setCapacity(capacity)
        var evicted = 0
        defer { if evicted > 0 { s.stats.evictions[.capacity, default: 0] += evicted } }
        while s.bytes + cost > capacity {
            let victim =
                priority == .demand
                ? s.policy.evict() : (s.chances[key].map { s.policy.evict(below: $0.chance / Double(cost)) } ?? s.policy.evictCold())
            guard let victim, let e = s.entries.removeValue(forKey: victim) else {
                if priority == .prefetch { s.stats.prefetchesRejected += 1 }
                return
            }
            s.bytes -= e.cost
            evicted += 1
        }
        s.entries[key] = Entry(tile: tile, cost: cost, prefetched: priority == .prefetch)
        s.bytes += cost
        s.policy.insert(key, cost: cost, priority: priority, popularity: s.weighsPopularity ? s.places.perTile(key) : 0)
        if let c = s.chances[key] { s.policy.setChance(key, c.chance) }
    }

    /// At most this many keys have a chance (a change for another key is dropped).
    public static let maxChanceKeys = 65_536
    /// A chance not changed over this many calls with changes is dropped: changes applied out of
    /// order (a session's chance taken back before it was given) cannot leave one for good.
    static let staleChanceTicks = 16_384

    /// Applies changes of chances (one call's), dropping what would fall to nothing (a
    /// taking back never makes a chance negative) and, now and then, what went stale.
    private static func change(_ changes: [(key: TileKey, change: Double)], _ s: inout State) {
        s.chanceTick += 1
        let tick = s.chanceTick
        for (k, change) in changes {
            let c: Double
            if let e = s.chances[k] {
                c = e.chance + change
            } else {
                guard change > 0, s.chances.count < maxChanceKeys else { continue }
                c = change
            }
            s.chances[k] = c > 1e-6 ? (c, tick) : nil
            if s.entries[k] != nil { s.policy.setChance(k, c > 1e-6 ? c : 0) }
        }
        guard tick % 4096 == 0 else { return }
        for (k, e) in s.chances where tick - e.tick > staleChanceTicks {
            s.chances[k] = nil
            if s.entries[k] != nil { s.policy.setChance(k, 0) }
        }
    }

    /// Counts a request in its neighbourhood.
    private static func count(_ key: TileKey, _ s: inout State) {
        guard s.countsRequests else { return }
        s.requests &+= 1
        s.places.record(key, tick: s.requests)
    }

    /// Evicts until the entries fit the current capacity.
    private static func fit(_ s: inout State, budget: Int, reason: EvictionReason) {
        let capacity = s.capacity(budget: budget)
        s.policy.setCapacity(capacity)
        while s.bytes > capacity {
            guard let victim = s.policy.evict(), let e = s.entries.removeValue(forKey: victim) else { break }
            s.bytes -= e.cost
            s.stats.evictions[reason, default: 0] += 1
        }
    }

    private static func drop(_ key: TileKey, _ s: inout State, reason: EvictionReason, counted: Bool = true) {
        guard let e = s.entries.removeValue(forKey: key) else { return }
        s.policy.remove(key)
        s.bytes -= e.cost
        if counted { s.stats.evictions[reason, default: 0] += 1 }
    }
}
