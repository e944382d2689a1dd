#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// Request figures (counts by route and status, body bytes, latency buckets) kept per thread, so
/// that recording a request touches no memory another core writes: with one shared set, every
/// tile answered by either event loop locked the same few locks (contended under load).
/// `/metrics` sums the shards.
final class RequestTally: Sendable {
    /// Upper bounds of the latency buckets, in nanoseconds (`ServerMetrics.buckets`).
    let bounds: [Int64]
    private let shards: [Shard]

    init(bounds: [Duration], shards: Int = 32) {
        self.bounds = bounds.map(\.nanoseconds)
        self.shards = (0..<max(1, shards)).map { _ in Shard(buckets: bounds.count) }
    }

    /// The figures of one route.
    struct RouteFigures: Equatable {
        /// Requests by status.
        var statuses: [Int: Int] = [:]
        /// Requests per latency bucket (`bounds`, then one more for slower), not cumulative.
        var buckets: [Int]
        var nanoseconds: Int64 = 0
        var count: Int { buckets.reduce(0, +) }

        init(buckets: Int) { self.buckets = Array(repeating: 0, count: buckets + 1) }

        /// Counts one request.
        mutating func count(status: Int, bucket: Int, nanoseconds: Int64) {
            statuses[status, default: 0] += 1
            buckets[bucket] += 1
            self.nanoseconds += nanoseconds
        }

        mutating func add(_ other: RouteFigures) {
            statuses.merge(other.statuses, uniquingKeysWith: +)
            for i in buckets.indices { buckets[i] += other.buckets[i] }
            nanoseconds += other.nanoseconds
        }
    }

    struct Totals: Equatable {
        var routes: [Route: RouteFigures] = [:]
        var bodyBytes = 0
    }

    /// One thread's figures. Padded so that two shards never share a cache line.
    final class Shard: Sendable {
        let state: Mutex<Totals>
        let bucketCount: Int
        private let padding: (Int64, Int64, Int64, Int64, Int64, Int64, Int64, Int64) = (0, 0, 0, 0, 0, 0, 0, 0)
        init(buckets: Int) {
            state = Mutex(Totals())
            bucketCount = buckets
        }
    }

    /// Records one request on this thread's shard.
    func record(route: Route, status: Int, bodyBytes: Int, nanoseconds: Int64) {
        var bucket = bounds.count
        for (i, b) in bounds.enumerated() where nanoseconds <= b {
            bucket = i
            break
        }
        let shard = shards[Self.shardIndex(count: shards.count)]
        let n = shard.bucketCount
        shard.state.withLock { t in
            t.routes[route, default: RouteFigures(buckets: n)].count(status: status, bucket: bucket, nanoseconds: nanoseconds)
            t.bodyBytes += bodyBytes
        }
    }

    /// The sum over every thread so far.
    var totals: Totals {
        var out = Totals()
        for shard in shards {
            let t = shard.state.withLock { $0 }
            out.bodyBytes += t.bodyBytes
            for (route, figures) in t.routes {
                if out.routes[route] == nil { out.routes[route] = RouteFigures(buckets: bounds.count) }
                out.routes[route]!.add(figures)
            }
        }
        return out
    }

    /// The calling thread's shard: a hash of its pthread id (threads rarely share one; when they
    /// do, they share a lock, as all did before).
    private static func shardIndex(count: Int) -> Int {
        #if canImport(Glibc)
        let id = UInt64(UInt(bitPattern: Int(bitPattern: UInt(pthread_self()))))
        #else
        let id = UInt64(UInt(bitPattern: pthread_self().hashValue))
        #endif
        return Int(truncatingIfNeeded: (id &* 0x9E37_79B9_7F4A_7C15) >> 40) % count
    }
}

/// The Prometheus text of the request latency histograms (`trailmap_http_request_duration_seconds`).
enum LatencyText {
    static func render(_ totals: RequestTally.Totals, bounds: [Int64]) -> String {
        guard !totals.routes.isEmpty else { return "" }
        let name = "trailmap_http_request_duration_seconds"
        var out = "# HELP \(name) Time to answer a request.\n# TYPE \(name) histogram\n"
        for (route, f) in totals.routes.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            var cumulative = 0
            for (i, bound) in bounds.enumerated() {
                cumulative += f.buckets[i]
                out += "\(name)_bucket{route=\"\(route.rawValue)\",le=\"\(seconds(bound))\"} \(cumulative)\n"
            }
            out += "\(name)_bucket{route=\"\(route.rawValue)\",le=\"+Inf\"} \(f.count)\n"
            out += "\(name)_sum{route=\"\(route.rawValue)\"} \(seconds(f.nanoseconds))\n"
            out += "\(name)_count{route=\"\(route.rawValue)\"} \(f.count)\n"
        }
        return out
    }

    /// Nanoseconds as decimal seconds, exactly (no floating point): 250000 -> 0.00025.
    static func seconds(_ ns: Int64) -> String {
        let whole = ns / 1_000_000_000
        var frac = String(ns % 1_000_000_000)
        frac = String(repeating: "0", count: 9 - frac.count) + frac
        while frac.hasSuffix("0") { frac.removeLast() }
        return frac.isEmpty ? "\(whole).0" : "\(whole).\(frac)"
    }
}
