import TileCache

/// The JSON of `GET /admin/cache`: the cache's live figures (keys in snake_case, as documented).
struct CacheReport: Encodable {
    struct Prefetch: Encodable {
        var enabled: Bool
        var issued, used, rejected: Int
        var sessions: PrefetchPredictor.SessionCounts?
    }
    struct Likely: Encodable {
        var bytes, chanceKeys: Int
        enum CodingKeys: String, CodingKey { case bytes, chanceKeys = "chance_keys" }
    }
    struct Bundles: Encodable {
        var open, maxOpen, opened: Int
        var closed: [String: Int]
        enum CodingKeys: String, CodingKey { case open, maxOpen = "max_open", opened, closed }
    }
    struct Pressure: Encodable {
        var level, measured: String
        var forced: String?
        var memoryCurrent, memoryLimit: Int?
        var psiSomeAvg10, psiFullAvg10: Double?
        enum CodingKeys: String, CodingKey {
            case level, measured, forced, memoryCurrent = "memory_current", memoryLimit = "memory_limit"
            case psiSomeAvg10 = "psi_some_avg10", psiFullAvg10 = "psi_full_avg10"
        }
    }

    var policy: String
    var budgetBytes, capacityBytes, bytes, reservedBytes, entries, hits, misses: Int
    var hitRatio: Double
    var singleFlightJoins, loads: Int
    var evictions: [String: Int]
    var prefetch: Prefetch
    /// Tiles kept for their chance of being asked for at a session's next step, for a policy that
    /// weighs chances (nil otherwise).
    var likely: Likely?
    var bundles: Bundles
    var memoryPressure: Pressure

    enum CodingKeys: String, CodingKey {
        case policy, budgetBytes = "budget_bytes", capacityBytes = "capacity_bytes", bytes, reservedBytes = "reserved_bytes"
        case entries, hits, misses, hitRatio = "hit_ratio", singleFlightJoins = "single_flight_joins", loads, evictions
        case prefetch, likely, bundles, memoryPressure = "memory_pressure"
    }

    init(_ c: CacheSnapshot) {
        let s = c.statistics
        policy = s.policy
        budgetBytes = s.budget
        capacityBytes = s.capacity
        bytes = s.bytes
        reservedBytes = s.reservedBytes
        entries = s.entries
        hits = s.hits
        misses = s.misses
        hitRatio = s.hitRatio
        singleFlightJoins = s.joins
        loads = s.loads
        evictions = Dictionary(uniqueKeysWithValues: EvictionReason.allCases.map { ($0.rawValue, s.evictions[$0] ?? 0) })
        prefetch = Prefetch(
            enabled: c.prefetch, issued: s.prefetchesIssued, used: s.prefetchesUsed, rejected: s.prefetchesRejected,
            sessions: c.sessions)
        likely = s.likelyBytes.map { Likely(bytes: $0, chanceKeys: s.chanceKeys) }
        bundles = Bundles(
            open: c.openBundles, maxOpen: c.maxOpenBundles, opened: c.bundleOpens,
            closed: Dictionary(uniqueKeysWithValues: EvictionReason.allCases.map { ($0.rawValue, c.bundleCloses[$0] ?? 0) }))
        memoryPressure = Pressure(
            level: c.level.rawValue, measured: c.measuredLevel.rawValue, forced: c.forcedLevel?.rawValue,
            memoryCurrent: c.reading.current, memoryLimit: c.reading.limit,
            psiSomeAvg10: c.reading.someAvg10, psiFullAvg10: c.reading.fullAvg10)
    }
}

/// The JSON of `GET /healthz`.
struct HealthReport: Encodable {
    var status = "ok"
    /// Tilesets in the tiles folder (served or not).
    var tilesets: Int
}
