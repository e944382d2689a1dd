import Dispatch
import Foundation
import TileCache
import TileGeometry

/// Nanoseconds per request through the cache and predictor as the server runs them, with the
/// predictor without chances (`Setup.withoutChances`) and the current one, in the same process,
/// runs alternating, the median of `rounds` reported:
///
/// - **hot, then all tiles**: one client (a load generator's address) asks for one tile 200,000
///   times (two runs of 100,000, 20 µs apart, a second's pause between them, as two wrk runs),
///   then for every tile of zooms 0-6 (5,461, a world relief's) in random order, `passes` times,
///   20 µs apart. Each request goes through `TileCache.tile` and, when found,
///   `Prefetcher.observe`, as `TilesetRegistry.cachedTile` does (prefetch loads on the
///   prefetcher's queue); the budget holds every tile, as the serving benchmark's cached server.
/// - **trace models**: each model's trace replayed at a 5% budget with prefetch, as the hit-ratio
///   tables are (the default policy; predictions loaded synchronously).
struct Throughput {
    var requests: Int
    var models: [TraceModel]
    var rounds = 5
    var passes = 40
    var hotRequests = 200_000

    func run() {
        print("## throughput: ns per request, without chances and current, median of \(rounds) alternating rounds\n")
        let (sequence, split) = hotThenAll()
        let sizes = TileSizes()
        let budget = 2 * Set(sequence.map(\.key)).reduce(0) { $0 + tile(sizes.bytes($1)).cost }
        var figures: [Setup: [[Double]]] = [.withoutChances: [], .current: []]
        for _ in 0..<rounds {
            for setup in [Setup.withoutChances, .current] {
                figures[setup]!.append(serve(sequence, split: split, sizes: sizes, budget: budget, setup: setup))
            }
        }
        print("| sequence | without chances: median (range) | current: median (range) | current / without (medians) |")
        print("|---|---|---|---|")
        let names = ["hot tile, \(split) requests", "then all \(Self.pyramid.count) tiles × \(passes), \(sequence.count - split) requests"]
        for (i, name) in names.enumerated() {
            let b = figures[.withoutChances]!.map { $0[i] }, c = figures[.current]!.map { $0[i] }
            print("| \(name) | \(ns(b)) | \(ns(c)) | \(String(format: "%.2f", median(c) / median(b))) |")
        }
        for model in models {
            let generator = TraceGenerator(model: model)
            let trace = generator.generate(requests: requests)
            let sizes = TileSizes(factor: model.sizeFactor)
            let total = Set(trace.map(\.key)).reduce(0) { $0 + tile(sizes.bytes($1)).cost }
            let clients = (0...(trace.map(\.client).max() ?? 0)).map(String.init)
            var times: [Setup: [Double]] = [.withoutChances: [], .current: []]
            for _ in 0..<rounds {
                for setup in [Setup.withoutChances, .current] {
                    let start = DispatchTime.now().uptimeNanoseconds
                    _ = Bench.replay(
                        trace, generator: generator, sizes: sizes, CacheConfiguration().policy, budget: total / 20,
                        prefetch: true, setup: setup, clients: clients)
                    times[setup]!.append(Double(DispatchTime.now().uptimeNanoseconds - start) / Double(trace.count))
                }
            }
            let b = times[.withoutChances]!, c = times[.current]!
            print(
                "| \(model.rawValue), \(trace.count) requests, 5% | \(ns(b)) | \(ns(c)) | \(String(format: "%.2f", median(c) / median(b))) |"
            )
        }
    }

    /// Every tile of zooms 0-6 of bundle 0.
    static let pyramid: [TileKey] = (0...6).flatMap { z in
        (0..<(1 << z)).flatMap { x in (0..<(1 << z)).map { y in TileKey(bundle: 0, tile: TileID(z: z, x: x, y: y)!) } }
    }

    /// The hot-then-all sequence, and where the all-tiles part starts.
    func hotThenAll() -> ([Request], Int) {
        let sizes = TileSizes()
        let hot = Self.pyramid.filter { $0.tile.z == 6 }.max { sizes.bytes($0) < sizes.bytes($1) }!
        var out = [Request]()
        var micros: UInt64 = 0
        for i in 0..<hotRequests {
            if i == hotRequests / 2 { micros += 1_000_000 }
            out.append(Request(client: 0, key: hot, time: micros / 1000))
            micros += 20
        }
        micros += 1_000_000
        let split = out.count
        var g = SplitMix(state: 42)
        for _ in 0..<passes {
            for key in Self.pyramid.shuffled(using: &g) {
                out.append(Request(client: 0, key: key, time: micros / 1000))
                micros += 20
            }
        }
        return (out, split)
    }

    /// Nanoseconds per request of the two parts of the sequence, through a new cache and prefetcher.
    func serve(_ sequence: [Request], split: Int, sizes: TileSizes, budget: Int, setup: Setup) -> [Double] {
        let cache = TileCache(budget: budget, policy: CacheConfiguration().policy, countsRequests: true)
        let prefetcher = Prefetcher(
            cache: cache,
            predictor: PrefetchPredictor(places: cache, chanceLifetime: setup.chanceLifetime))
        let client = "127.0.0.1"
        var parts = [Double]()
        for range in [0..<split, split..<sequence.count] {
            let start = DispatchTime.now().uptimeNanoseconds
            for r in sequence[range] {
                let key = r.key
                let found = try? cache.tile(key) { tile(sizes.bytes(key)) }
                if found != nil {
                    prefetcher.observe(client: client, key: key, now: r.time, within: { $0.tile.z <= 6 }) { k in tile(sizes.bytes(k)) }
                }
            }
            parts.append(Double(DispatchTime.now().uptimeNanoseconds - start) / Double(range.count))
        }
        prefetcher.drain()
        return parts
    }
}

private func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

/// The median of the rounds, and their range.
private func ns(_ x: [Double]) -> String {
    String(format: "%.0f ns (%.0f-%.0f)", median(x), x.min() ?? 0, x.max() ?? 0)
}
