import Prometheus
import Synchronization
import TileCache

/// The server's Prometheus metrics: requests by route and status, latency, bytes, tiles, and the
/// tile cache's figures (read from the cache when `/metrics` is rendered).
public final class ServerMetrics: Sendable {
    public let registry: PrometheusCollectorRegistry
    private let tally = RequestTally(bounds: ServerMetrics.buckets)
    private let timedOut: Counter
    private let refusedConnections: Counter
    private let acceptPauses: Counter
    private let handOffs: Counter
    private let catalogWaits: [CatalogWait.Reason: Counter]
    private let paidMapReadFailures: Counter
    private let tileFileSends: Counter
    private let tileFileFailures: Counter
    private let tileFileFailed = Atomic<Bool>(false)
    /// Bytes and count of the tile loops' sealed copies of large tiles (`TileFiles`).
    private let tileFileBytes = Atomic<Int>(0)
    private let tileFileCopies = Atomic<Int>(0)
    private let cacheSource = Mutex<CacheSystem?>(nil)
    /// Counter values already published, by series, to turn the cache's totals into increments.
    private let published = Mutex<[String: Int]>([:])

    static let buckets: [Duration] = [
        .microseconds(100), .microseconds(250), .microseconds(500), .milliseconds(1),
        .milliseconds(2.5), .milliseconds(5), .milliseconds(10), .milliseconds(25),
        .milliseconds(50), .milliseconds(100), .milliseconds(250), .seconds(1)
    ]

    public init(registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry()) {
        self.registry = registry
        // Made now so that they show (at 0) before the first request, as before.
        _ = registry.makeCounter(name: "trailmap_http_response_bytes_total", help: "Bytes of response bodies sent.")
        _ = registry.makeCounter(name: "trailmap_tiles_served_total", help: "Tiles answered with 200.")
        _ = registry.makeCounter(name: "trailmap_tiles_not_modified_total", help: "Tile requests answered 304.")
        timedOut = registry.makeCounter(
            name: "trailmap_connections_timed_out_total",
            help: "Connections closed for a request not complete in time or for being idle.")
        refusedConnections = registry.makeCounter(
            name: "trailmap_connections_refused_total",
            help: "Connections answered 503 and closed for being past the open-connection cap.")
        acceptPauses = registry.makeCounter(
            name: "trailmap_tile_loop_accept_pauses_total",
            help: "Times a tile loop stopped accepting for a moment because the process was out of file descriptors or memory.")
        handOffs = registry.makeCounter(
            name: "trailmap_tile_loop_handoffs_total",
            help: "Connections the tile loops handed to Hummingbird's path, at a request they do not answer.")
        let waits = (
            name: "trailmap_tile_loop_catalog_waits_total",
            help: "Tile requests the tile loops held for a catalog read: a paid tile's credential (grant), the stale paid map (paid_map)."
        )
        paidMapReadFailures = registry.makeCounter(
            name: "trailmap_paid_map_read_failures_total",
            help: "Reads of which tilesets are paid that failed (the catalog could not be read); the list last read stays in force.")
        tileFileSends = registry.makeCounter(
            name: "trailmap_tile_file_sends_total",
            help: "Tile bodies the tile loops sent with sendfile from a sealed copy (large tiles asked for again).")
        tileFileFailures = registry.makeCounter(
            name: "trailmap_tile_file_failures_total",
            help: "Sealed copies of large tiles the system refused to make (the tile is sent from memory).")
        catalogWaits = Dictionary(
            uniqueKeysWithValues: CatalogWait.Reason.allCases.map {
                ($0, registry.makeCounter(name: waits.name, labels: [("reason", $0.rawValue)], help: waits.help))
            })
    }

    /// A connection closed by `ConnectionDeadlines`.
    func recordTimeout() { timedOut.increment() }

    /// A connection refused by `ConnectionLimit`.
    func recordRefusedConnection() { refusedConnections.increment() }

    /// A tile loop paused accepting (out of file descriptors or memory).
    func recordAcceptPause() { acceptPauses.increment() }

    /// A connection a tile loop handed to Hummingbird.
    func recordHandOff() { handOffs.increment() }

    /// A tile body a tile loop sent from its sealed copy.
    func recordTileFileSend() { tileFileSends.increment() }

    /// A sealed copy of a large tile the system refused; true the first time.
    func recordTileFileFailure() -> Bool {
        tileFileFailures.increment()
        return !tileFileFailed.exchange(true, ordering: .relaxed)
    }

    /// The tile loops' sealed copies changed by `bytes` and `copies` (deltas).
    func tileFilesChanged(bytes: Int, copies: Int) {
        tileFileBytes.add(bytes, ordering: .relaxed)
        tileFileCopies.add(copies, ordering: .relaxed)
    }

    /// A read of which tilesets are paid that failed.
    func recordPaidMapReadFailure() { paidMapReadFailures.increment() }

    /// A tile request a tile loop held for a catalog read.
    func recordCatalogWait(_ wait: CatalogWait) { catalogWaits[wait.reason]?.increment() }

    /// Records one request (on the calling thread's tally: no lock shared between threads).
    func record(route: Route, status: Int, bodyBytes: Int, duration: Duration) {
        tally.record(route: route, status: status, bodyBytes: bodyBytes, nanoseconds: max(0, duration.nanoseconds))
    }

    /// Turns the tally's totals into the registry's counters (by increments since the last
    /// rendering) and returns the latency histograms' text, which the registry does not hold.
    private func publishRequests() -> String {
        let totals = tally.totals
        var counts: [(String, [(String, String)], Int, String)] = []
        var tileOK = 0, tileNotModified = 0
        for (route, figures) in totals.routes {
            for (status, n) in figures.statuses {
                counts.append(
                    (
                        "trailmap_http_requests_total", [("route", route.rawValue), ("status", String(status))], n,
                        "HTTP requests by route and status."
                    ))
            }
            if route == .tile {
                tileOK = figures.statuses[200] ?? 0
                tileNotModified = figures.statuses[304] ?? 0
            }
        }
        publishTotals(counts)
        publishTotals([
            ("trailmap_http_response_bytes_total", [], totals.bodyBytes, "Bytes of response bodies sent."),
            ("trailmap_tiles_served_total", [], tileOK, "Tiles answered with 200."),
            ("trailmap_tiles_not_modified_total", [], tileNotModified, "Tile requests answered 304.")
        ])
        return LatencyText.render(totals, bounds: tally.bounds)
    }

    /// Publishes this cache's figures with every rendering.
    func attach(_ cache: CacheSystem) {
        cacheSource.withLock { $0 = cache }
    }

    /// The Prometheus text exposition.
    func render() -> [UInt8] {
        if let cache = cacheSource.withLock({ $0 }) { publish(cache.snapshot) }
        registry.makeGauge(
            name: "trailmap_tile_files_bytes",
            help: "Memory of the tile loops' sealed copies of large tiles, in whole pages (shared memory, beside the cache)."
        )
        .set(Double(tileFileBytes.load(ordering: .relaxed)))
        registry.makeGauge(name: "trailmap_tile_files", help: "Sealed copies of large tiles the tile loops hold.")
            .set(Double(tileFileCopies.load(ordering: .relaxed)))
        let latency = publishRequests()
        return registry.emitToBuffer() + Array(latency.utf8)
    }

    private func publish(_ c: CacheSnapshot) {
        let s = c.statistics
        func gauge(_ name: String, _ value: Int, _ help: String, labels: [(String, String)] = []) {
            gauge(name, Double(value), help, labels: labels)
        }
        func gauge(_ name: String, _ value: Double, _ help: String, labels: [(String, String)] = []) {
            registry.makeGauge(name: name, labels: labels, help: help).set(value)
        }
        gauge("trailmap_cache_bytes", s.bytes, "Bytes held by cached tiles, payload and per-entry overhead.")
        gauge("trailmap_cache_entries", s.entries, "Tiles held in the cache.")
        gauge("trailmap_cache_budget_bytes", s.budget, "The cache's byte budget.")
        gauge("trailmap_cache_capacity_bytes", s.capacity, "Bytes tiles may use now (budget shrunk under pressure, less open bundles).")
        gauge("trailmap_cache_reserved_bytes", s.reservedBytes, "Bytes of the budget reserved for open bundles.")
        gauge("trailmap_memory_pressure_level", c.level.value, "Memory pressure in effect: 0 normal, 1 warning, 2 critical.")
        gauge("trailmap_bundles_open", c.openBundles, "Bundles with open SQLite connections.")
        if let likely = s.likelyBytes {
            gauge(
                "trailmap_cache_likely_bytes", likely,
                "Bytes held by tiles kept for their chance of being asked for at a session's next step.")
            gauge(
                "trailmap_cache_chance_keys", s.chanceKeys,
                "Tiles, held or not, given a chance of being asked for at a session's next step.")
        }
        if let sessions = c.sessions {
            for (state, count) in [("tracked", sessions.tracked), ("predicted", sessions.predicted), ("repeating", sessions.repeating)] {
                gauge(
                    "trailmap_prefetch_sessions", count,
                    "Sessions the predictor tracks, those that get predictions now, and those that ask for their viewport again.",
                    labels: [("state", state)])
            }
        }
        var totals: [(String, [(String, String)], Int, String)] = [
            ("trailmap_cache_hits_total", [], s.hits, "Tile lookups answered from the cache."),
            ("trailmap_cache_misses_total", [], s.misses, "Tile lookups not in the cache."),
            ("trailmap_cache_single_flight_joins_total", [], s.joins, "Misses that waited for another request's read of the same tile."),
            ("trailmap_cache_loads_total", [], s.loads, "Bundle reads made by the cache (misses and prefetches)."),
            ("trailmap_cache_prefetches_issued_total", [], s.prefetchesIssued, "Predicted tiles loaded."),
            ("trailmap_cache_prefetches_used_total", [], s.prefetchesUsed, "Prefetched tiles later asked for."),
            (
                "trailmap_cache_prefetches_rejected_total", [], s.prefetchesRejected,
                "Predicted tiles loaded but not admitted (no room among tiles never read)."
            ),
            ("trailmap_bundles_opened_total", [], c.bundleOpens, "Bundle opens (lazy, on first read).")
        ]
        for reason in EvictionReason.allCases {
            totals.append(
                (
                    "trailmap_cache_evictions_total", [("kind", "tile"), ("reason", reason.rawValue)],
                    s.evictions[reason] ?? 0, "Tiles evicted, and bundles closed, by reason."
                ))
            totals.append(
                (
                    "trailmap_cache_evictions_total", [("kind", "bundle"), ("reason", reason.rawValue)],
                    c.bundleCloses[reason] ?? 0, "Tiles evicted, and bundles closed, by reason."
                ))
        }
        publishTotals(totals)
    }

    /// Adds to each counter what its total grew by since the last call.
    private func publishTotals(_ totals: [(String, [(String, String)], Int, String)]) {
        published.withLock { last in
            for (name, labels, value, help) in totals {
                let series = name + labels.map { "\($0.0)=\($0.1)" }.joined(separator: ",")
                let delta = value - (last[series] ?? 0)
                let counter = registry.makeCounter(name: name, labels: labels, help: help)
                if delta > 0 { counter.increment(by: Int64(delta)) }
                last[series] = max(value, last[series] ?? 0)
            }
        }
    }
}

/// Route labels for metrics.
enum Route: String, Sendable {
    case tile, tilejson, list, viewer, asset, metrics, health, admin, api, download, store, wmts, other
}
