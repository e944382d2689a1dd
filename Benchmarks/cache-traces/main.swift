import Dispatch
import Synchronization
import Foundation
import NIOCore
import TileCache
import TileGeometry

// Replays generated map sessions (several trace models, tiles of realistic and varying sizes)
// against each cache policy of the TileCache module (the same TileCache class the server uses,
// entries costing what a real tile of that size costs) at budgets of 1%, 5% and 10% of the
// bytes of the distinct tiles asked for, without and with prefetch (the module's
// PrefetchPredictor; predicted tiles go through the cache's prefetch admission and are not
// requests). Beside them, two offline bounds without prefetch: byte-capacity Belady and
// "next use x size". Hit ratio = requests hit / requests.
// Usage: cache-traces [requests per model] [model,model,...] [policy,policy,...]
//        cache-traces throughput [requests per model] [model,model,...]   (see Throughput.swift)
//        cache-traces informed [requests]   (nocache at 5% against a policy told the sessions' states; see InformedReplay.swift)

/// One shared buffer; every tile is a slice of it (no copies).
enum Payload {
    static let buffer = ByteBuffer(repeating: 7, count: 2 << 20)
}

func tile(_ bytes: Int) -> CachedTile {
    CachedTile(buffer: Payload.buffer.getSlice(at: 0, length: min(bytes, Payload.buffer.readableBytes))!, etag: "\"0123456789abcdef\"")
}

func pct(_ x: Double) -> String { String(format: "%.1f%%", x * 100) }

func mb(_ x: Int) -> String { String(format: "%.1f MB", Double(x) / 1_000_000) }

struct Result {
    var hit = 0.0
    var issued = 0
    var used = 0
}

/// The default policy and predictor as configured now, or without chances (sessions that ask
/// for their viewport again get the ring ahead and the rest of their next viewport as
/// predictions, `PrefetchPredictor(chanceLifetime: nil)`), for a comparison in the same run.
enum Setup: String {
    case withoutChances
    case current

    var chanceLifetime: UInt64? { self == .withoutChances ? nil : PrefetchPredictor().chanceLifetime }
}

struct Bench {
    let requests: Int
    let models: [TraceModel]
    let shares = [0.01, 0.05, 0.10]
    var policies = PolicyKind.allCases

    func run() {
        let started = Date()
        var summary = [String]()
        for model in models {
            if let line = run(model) { summary.append(line) }
        }
        if !summary.isEmpty {
            print("\n## goal at 5%: the default policy with prefetch at or above the next-use × size bound\n")
            summary.forEach { print($0) }
        }
        print(String(format: "\n(%.0f s)", Date().timeIntervalSince(started)))
    }

    /// Prints a model's table; returns its line of the summary (nil when the default policy is
    /// not among those replayed).
    func run(_ model: TraceModel) -> String? {
        let generator = TraceGenerator(model: model)
        let trace = generator.generate(requests: requests)
        let sizes = TileSizes(factor: model.sizeFactor)
        var dense = [TileKey: Int]()
        var tileCosts = [Int]()
        let ids = trace.map { r -> Int in
            if let i = dense[r.key] { return i }
            dense[r.key] = tileCosts.count
            tileCosts.append(tile(sizes.bytes(r.key)).cost)
            return tileCosts.count - 1
        }
        let costs = tileCosts
        let nextUse = OfflineBound.nextUses(ids)
        let totalBytes = costs.reduce(0, +)
        let payloads = dense.keys.map { sizes.bytes($0) }.sorted()
        print(
            "\n## \(model.rawValue): \(trace.count) requests, \(costs.count) distinct tiles (\(mb(totalBytes)) with entry overhead; "
                + "payload median \(payloads[payloads.count / 2] / 1000) KB, p90 \(payloads[payloads.count * 9 / 10] / 1000) KB, "
                + "max \(payloads.last! / 1000) KB), \(Set(trace.map(\.client)).count) sessions")

        print(Self.accuracy(trace, generator: generator))
        if model == .trails { print(Self.accuracy(trace, generator: generator, trailPaths: false) + " (momentum alone)") }

        // Every (budget, column) job; columns: Belady, next-use x size, then each policy off and on.
        let policies = self.policies, shares = self.shares
        let columns = 2 + policies.count * 2
        let results = Mutex<[Int: Result]>([:])
        DispatchQueue.concurrentPerform(iterations: shares.count * columns) { j in
            let b = j / columns, c = j % columns
            let budget = Int(Double(totalBytes) * shares[b])
            let r: Result
            switch c {
            case 0: r = Result(hit: OfflineBound.belady.hitRatio(ids, nextUse: nextUse, costs: costs, capacity: budget))
            case 1: r = Result(hit: OfflineBound.nextUseTimesSize.hitRatio(ids, nextUse: nextUse, costs: costs, capacity: budget))
            default:
                r = Self.replay(
                    trace, generator: generator, sizes: sizes, policies[(c - 2) / 2], budget: budget, prefetch: (c - 2) % 2 == 1)
            }
            results.withLock { $0[j] = r }
        }
        let all = results.withLock { $0 }
        print("\nhit ratio (requests hit / requests) without prefetch / with prefetch; bounds without prefetch\n")
        print("| budget | Belady | next-use × size | " + policies.map { "\($0.rawValue) off / on" }.joined(separator: " | ") + " |")
        print("|---|---|---|" + policies.map { _ in "---" }.joined(separator: "|") + "|")
        for (b, share) in shares.enumerated() {
            let row = (0..<columns).map { all[b * columns + $0]! }
            var cells = ["\(Int(share * 100))% (\(mb(Int(Double(totalBytes) * share))))", pct(row[0].hit), pct(row[1].hit)]
            for p in policies.indices { cells.append("\(pct(row[2 + 2 * p].hit)) / \(pct(row[3 + 2 * p].hit))") }
            print("| " + cells.joined(separator: " | ") + " |")
        }
        print("\nprefetches used / issued:\n")
        for (b, share) in shares.enumerated() {
            let row = (0..<columns).map { all[b * columns + $0]! }
            print(
                "- \(Int(share * 100))%: "
                    + policies.indices.map { p in
                        "\(policies[p].rawValue) \(row[3 + 2 * p].used)/\(row[3 + 2 * p].issued)"
                    }.joined(separator: ", "))
        }
        // The default without chances (`Setup.withoutChances`), for a comparison in the same run.
        let def0 = CacheConfiguration().policy
        let without = Mutex<[Int: Result]>([:])
        DispatchQueue.concurrentPerform(iterations: shares.count * 2) { j in
            let b = j / 2
            let r = Self.replay(
                trace, generator: generator, sizes: sizes, def0, budget: Int(Double(totalBytes) * shares[b]),
                prefetch: j % 2 == 1, setup: .withoutChances)
            without.withLock { $0[j] = r }
        }
        let withoutAll = without.withLock { $0 }
        print(
            "\n\(def0.rawValue) without chances, without / with prefetch: "
                + shares.indices.map { "\(Int(shares[$0] * 100))% \(pct(withoutAll[2 * $0]!.hit)) / \(pct(withoutAll[2 * $0 + 1]!.hit))" }
                .joined(separator: ", "))
        let b5 = shares.firstIndex(of: 0.05)!
        let bound = all[b5 * columns + 1]!.hit
        let def = CacheConfiguration().policy
        // The goal is the default policy's: without it among those replayed, there is none to report.
        guard let d = policies.firstIndex(of: def) else { return nil }
        let chosen = all[b5 * columns + 3 + 2 * d]!
        let withPrefetch = chosen.hit
        if model == .trails {
            let budget = Int(Double(totalBytes) * 0.05)
            let straight = Self.replay(trace, generator: generator, sizes: sizes, def, budget: budget, prefetch: true, trailPaths: false)
            print(
                "\nat 5%, \(def.rawValue) with prefetch: \(pct(withPrefetch)) following the trails, \(pct(straight.hit)) "
                    + "with momentum alone (prefetches used / issued \(chosen.used)/"
                    + "\(chosen.issued) against \(straight.used)/\(straight.issued))")
        }
        return "- \(model.rawValue): default (\(def.rawValue)) with prefetch \(pct(withPrefetch)) against next-use × size \(pct(bound)): "
            + (withPrefetch >= bound ? "reached" : "not reached (\(String(format: "%.2f", withPrefetch / bound))x)")
            + "; without chances \(pct(withoutAll[2 * b5 + 1]!.hit)) (\(String(format: "%.2f", withoutAll[2 * b5 + 1]!.hit / bound))x)"
    }

    /// A predictor that knows the regions' trails (`trails` model) as a server with trails does,
    /// reading popular places from `places` (as the server's, from its cache) or counting its own.
    static func predictor(
        _ generator: TraceGenerator, trailPaths: Bool, places: TileCache? = nil, setup: Setup = .current
    ) -> PrefetchPredictor {
        let predictor = PrefetchPredictor(
            places: places, chanceLifetime: setup.chanceLifetime)
        if trailPaths, generator.model == .trails {
            for r in 0..<generator.regions {
                predictor.setTrailPaths(TrailPaths(lines: generator.trailLonLats(region: r)), bundle: UInt32(r))
            }
        }
        return predictor
    }

    /// How many of the predictor's predictions (without a cache) its session asked for later.
    static func accuracy(_ trace: [Request], generator: TraceGenerator, trailPaths: Bool = true) -> String {
        let predictor = predictor(generator, trailPaths: trailPaths)
        var open = [Int: Set<TileKey>]()
        var issued = 0, used = 0
        for r in trace {
            if open[r.client]?.remove(r.key) != nil { used += 1 }
            let p = predictor.observe(client: String(r.client), key: r.key, now: r.time)
            issued += p.count
            open[r.client, default: []].formUnion(p)
        }
        return "predictor: \(issued) predictions (\(String(format: "%.2f", Double(issued) / Double(trace.count))) a request), "
            + "\(used) asked for later by their session (\(pct(Double(used) / Double(max(1, issued)))))"
    }

    static func replay(
        _ trace: [Request], generator: TraceGenerator, sizes: TileSizes, _ kind: PolicyKind,
        budget: Int, prefetch: Bool, trailPaths: Bool = true, setup: Setup = .current, clients: [String]? = nil
    ) -> Result {
        // As the server's cache system: with prefetch, the cache counts requests for the predictor.
        let cache = TileCache(budget: budget, policy: kind, countsRequests: prefetch ? true : nil)
        let predictor = predictor(generator, trailPaths: trailPaths, places: cache, setup: setup)
        for r in trace {
            _ = try? cache.tile(r.key) { tile(sizes.bytes(r.key)) }
            if prefetch {
                // As the server's Prefetcher (synchronously): the prediction told to the cache under
                // one lock (expectations, releases), the predicted tiles it lacks loaded.
                let prediction = predictor.predict(client: clients?[r.client] ?? String(r.client), key: r.key, now: r.time)
                for k in cache.plan(prediction, after: r.key, within: generator.exists) {
                    cache.prefetch(k) { tile(sizes.bytes(k)) }
                }
            }
        }
        let s = cache.statistics
        return Result(hit: Double(s.hits) / Double(trace.count), issued: s.prefetchesIssued, used: s.prefetchesUsed)
    }
}

var arguments = CommandLine.arguments.dropFirst()
if arguments.first == "throughput" {
    arguments = arguments.dropFirst()
    let models = arguments.dropFirst().first.map { $0.split(separator: ",").compactMap { TraceModel(rawValue: String($0)) } }
    Throughput(requests: arguments.first.flatMap(Int.init) ?? 60_000, models: models ?? TraceModel.allCases).run()
    exit(0)
}
if arguments.first == "informed" {
    let given = arguments.dropFirst().first
    guard let requests = given.map({ Int($0) }) ?? 300_000, requests > 0 else {
        FileHandle.standardError.write(Data("usage: cache-traces informed [requests, a positive number]\n".utf8))
        exit(1)
    }
    InformedReplay.report(requests: requests)
    exit(0)
}
let requestCount = arguments.first.flatMap(Int.init) ?? 300_000
let chosen = arguments.dropFirst().first.map { $0.split(separator: ",").compactMap { TraceModel(rawValue: String($0)) } }
var bench = Bench(requests: requestCount, models: chosen ?? TraceModel.allCases)
if let names = arguments.dropFirst(2).first {
    bench.policies = names.split(separator: ",").compactMap { PolicyKind(rawValue: String($0)) }
}
bench.run()
