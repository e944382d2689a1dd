import Foundation
import Synchronization
import TileCache
import TileGeometry

/// An online policy told what no server is told: every session's state after each of its steps
/// (region, zoom, centre and heading) and the generator's step rules. At each step it simulates
/// the session's next `horizon` steps `futures` times and credits each tile the chance that the
/// session asks for it at each of them (discounted by `discount` a step, and by the chance that
/// the session goes on). A tile's value is that credit summed over sessions, plus
/// `popularityWeight` per request of it lately (other sessions coming back; halved every
/// `popularityHalfLife` requests). It keeps the tiles of highest value per byte and, at each
/// step, loads the session's likeliest tiles it lacks (at most `prefetchPerStep`) while they are
/// worth more per byte than the least held one. A session silent for longer than a step's
/// longest gap has ended. It draws no future of the trace: what it gets is about what an online
/// policy gets with a predictor as good as the model allows. Only for the `nocache` model (whole
/// viewports asked for again, no trails, no jumps).
struct InformedReplay {
    var futures = 64
    var horizon = 1
    var discount = 0.6
    var popularityWeight = 0.005
    var popularityHalfLife = 50_000.0
    var prefetchPerStep = 24
    /// Whether a future's zoom steps count (if not, only its pans do).
    var zooms = true
    /// Whether a pan may turn (the generator's 30%); if not, every pan keeps the heading.
    var turns = true
    /// Whether the policy is told only what a server sees (`Observer`): each step's first
    /// request (the tile at the viewport's centre), the viewport's size, the bundles' bounds,
    /// and how often sessions pan and turn as counted over all sessions so far. Its futures are
    /// the next step's pans only.
    var observed = false
    var seed: UInt64 = 7

    struct Outcome {
        var hit = 0.0
        var loads = 0
        var used = 0
    }

    /// The tiles held, in arrays the eviction scans: value per byte is `interest +
    /// popularityWeight × scaled × e^(−decay × now)`, over `cost`.
    private struct Held {
        var index: [TileKey: Int] = [:]
        var keys: [TileKey] = []
        var costs: [Double] = []
        var interest: [Double] = []
        var scaled: [Double] = []
        var prefetched: [Bool] = []
        var bytes = 0.0

        mutating func add(_ key: TileKey, cost: Double, interest i: Double, scaled s: Double, prefetched p: Bool) {
            index[key] = keys.count
            keys.append(key)
            costs.append(cost)
            interest.append(i)
            scaled.append(s)
            prefetched.append(p)
            bytes += cost
        }

        mutating func remove(at i: Int) {
            index[keys[i]] = nil
            bytes -= costs[i]
            let last = keys.count - 1
            if i != last {
                keys[i] = keys[last]
                costs[i] = costs[last]
                interest[i] = interest[last]
                scaled[i] = scaled[last]
                prefetched[i] = prefetched[last]
                index[keys[i]] = i
            }
            keys.removeLast()
            costs.removeLast()
            interest.removeLast()
            scaled.removeLast()
            prefetched.removeLast()
        }

        /// The least value per byte held, and where.
        func least(popularity w: Double) -> (index: Int, score: Double)? {
            guard !keys.isEmpty else { return nil }
            var worst = 0, score = Double.infinity
            for i in keys.indices {
                let s = (interest[i] + w * scaled[i]) / costs[i]
                if s < score {
                    score = s
                    worst = i
                }
            }
            return (worst, score)
        }
    }

    func run(_ trace: [Request], steps: [StepState], generator t: TraceGenerator, sizes: TileSizes, budget: Int) -> Outcome {
        var g = SplitMix(state: seed)
        var held = Held()
        var interest = [Int: [TileKey: Double]]()
        var lastStep = [Int: UInt64]()
        var total = [TileKey: Double]()
        // Requests per tile, each scaled by e^(decay × its index): × e^(−decay × now) is the decayed count.
        var scaled = [TileKey: Double]()
        let decay = log(2) / popularityHalfLife
        let capacity = Double(budget)
        var hits = 0, loads = 0, used = 0
        var nextStep = 0
        var observer = Observer()

        func change(_ key: TileKey, by delta: Double) {
            let n = (total[key] ?? 0) + delta
            total[key] = n > 1e-9 ? n : nil
            if let i = held.index[key] { held.interest[i] = max(0, n) }
        }
        func fit(_ now: Int) {
            let w = popularityWeight * exp(-decay * Double(now))
            while held.bytes > capacity, let (i, _) = held.least(popularity: w) { held.remove(at: i) }
        }

        for (i, r) in trace.enumerated() {
            while nextStep < steps.count, steps[nextStep].firstRequest <= i {
                let s = steps[nextStep]
                nextStep += 1
                lastStep[s.client] = s.time
                for (client, time) in lastStep where time + 1_000 < s.time {
                    lastStep[client] = nil
                    for (k, v) in interest.removeValue(forKey: client) ?? [:] { change(k, by: -v) }
                }
                let map =
                    observed
                    ? observer.interest(client: s.client, centre: trace[s.firstRequest].key, generator: t)
                    : futureInterest(s, generator: t, &g)
                for (k, v) in interest[s.client] ?? [:] { change(k, by: -v) }
                for (k, v) in map { change(k, by: v) }
                interest[s.client] = map
                // The session's likeliest tiles not held, while worth more per byte than the least held.
                let w = popularityWeight * exp(-decay * Double(i))
                var candidates = map.filter { held.index[$0.key] == nil }.map { (key: $0.key, value: $0.value) }
                candidates.sort { $0.value > $1.value }
                for c in candidates.prefix(prefetchPerStep) {
                    let cost = Double(tile(sizes.bytes(c.key)).cost)
                    let value = (total[c.key] ?? 0) + w * (scaled[c.key] ?? 0)
                    if held.bytes + cost > capacity {
                        guard let least = held.least(popularity: w), value / cost > least.score else { continue }
                    }
                    held.add(c.key, cost: cost, interest: total[c.key] ?? 0, scaled: scaled[c.key] ?? 0, prefetched: true)
                    loads += 1
                    fit(i)
                }
            }
            let s = (scaled[r.key] ?? 0) + exp(decay * Double(i))
            scaled[r.key] = s
            if let j = held.index[r.key] {
                hits += 1
                held.scaled[j] = s
                if held.prefetched[j] {
                    used += 1
                    held.prefetched[j] = false
                }
                continue
            }
            held.add(r.key, cost: Double(tile(sizes.bytes(r.key)).cost), interest: total[r.key] ?? 0, scaled: s, prefetched: false)
            fit(i)
        }
        return Outcome(hit: Double(hits) / Double(trace.count), loads: loads, used: used)
    }

    /// The chance, discounted by steps, that the session asks for each tile in its next steps.
    func futureInterest(_ s: StepState, generator t: TraceGenerator, _ g: inout SplitMix) -> [TileKey: Double] {
        var map = [TileKey: Double]()
        let stay = exp(-1 / t.meanSteps)
        for _ in 0..<futures {
            var z = s.z, cx = s.cx, cy = s.cy, direction = s.direction
            var weight = 1 / Double(futures)
            for _ in 0..<horizon {
                weight *= stay
                defer { weight *= discount }
                // The generator's step (`Session.step`).
                let u = Double.random(in: 0..<1, using: &g)
                if u < 0.7 {
                    if Double.random(in: 0..<1, using: &g) > 0.7, turns { direction = Int.random(in: 0..<8, using: &g) }
                    let (dx, dy) = Session.moves[direction]
                    cx += Double(dx) * t.model.panStep
                    cy += Double(dy) * t.model.panStep
                } else if !zooms {
                    continue
                } else if u < 0.85, z < t.maxZoom {
                    z += 1
                    cx *= 2
                    cy *= 2
                } else if z > t.minZoom + 2 {
                    z -= 1
                    cx /= 2
                    cy /= 2
                }
                // The viewport it asks for (`Session.emit`).
                let b = t.bounds(region: s.region, z: z)
                cx = min(max(cx, b.x0 + 1), b.x1 - 1)
                cy = min(max(cy, b.y0 + 1), b.y1 - 1)
                let hw = t.model.viewport.w / 2, hh = t.model.viewport.h / 2
                for x in Int((cx - hw).rounded(.down))...Int((cx + hw).rounded(.down)) {
                    for y in Int((cy - hh).rounded(.down))...Int((cy + hh).rounded(.down)) {
                        guard Double(x) >= b.x0, Double(x) < b.x1, Double(y) >= b.y0, Double(y) < b.y1,
                            let id = TileID(z: z, x: x, y: y)
                        else { continue }
                        map[TileKey(bundle: UInt32(s.region), tile: id), default: 0] += weight
                    }
                }
            }
        }
        return map
    }
}

/// What a server can tell of sessions that ask for their whole viewport again: each step's centre
/// tile (viewers draw from the centre out), the heading of its last pan, and over all sessions
/// how often a step pans and how often a pan keeps the heading.
struct Observer {
    var last: [Int: (key: TileKey, heading: Int?)] = [:]
    var steps = 1.0, pans = 0.7, pansKept = 0.7

    /// The chance that the session's next step (a pan) asks for each tile, after a step centred
    /// on `centre`; learns from the move since its step before.
    mutating func interest(client: Int, centre: TileKey, generator t: TraceGenerator) -> [TileKey: Double] {
        var heading = last[client]?.heading
        if let before = last[client]?.key, before.bundle == centre.bundle {
            steps += 1
            let dx = centre.tile.x - before.tile.x, dy = centre.tile.y - before.tile.y
            if before.tile.z == centre.tile.z, abs(dx) <= 1, abs(dy) <= 1, dx != 0 || dy != 0 {
                pans += 1
                let d = Session.moves.firstIndex { $0 == (dx, dy) }
                if d == heading { pansKept += 1 }
                heading = d
            }
        }
        last[client] = (centre, heading)
        let pPan = pans / steps, pKeep = pansKept / max(1, pans)
        var map = [TileKey: Double]()
        let hw = Int(t.model.viewport.w / 2), hh = Int(t.model.viewport.h / 2)
        for (d, move) in Session.moves.enumerated() {
            let p = pPan * (heading == nil ? 1.0 / 8 : (d == heading ? pKeep : (1 - pKeep) / 7))
            let cx = centre.tile.x + move.0, cy = centre.tile.y + move.1
            for x in (cx - hw)...(cx + hw) {
                for y in (cy - hh)...(cy + hh) {
                    guard let id = TileID(z: centre.tile.z, x: x, y: y) else { continue }
                    let key = TileKey(bundle: centre.bundle, tile: id)
                    if t.exists(key) { map[key, default: 0] += p }
                }
            }
        }
        return map
    }
}

extension InformedReplay {
    /// Prints, for the `nocache` model at a budget of 5%, the informed policy in several variants
    /// beside the next-use × size bound and the default policy with prefetch, on the same trace.
    static func report(requests: Int) {
        let started = Date()
        let generator = TraceGenerator(model: .nocache)
        let (trace, steps) = generator.generateWithSteps(requests: requests)
        let sizes = TileSizes(factor: generator.model.sizeFactor)
        var dense = [TileKey: Int](), tileCosts = [Int]()
        let ids = trace.map { r -> Int in
            if let i = dense[r.key] { return i }
            dense[r.key] = tileCosts.count
            tileCosts.append(tile(sizes.bytes(r.key)).cost)
            return tileCosts.count - 1
        }
        let costs = tileCosts
        let budget = Int(Double(costs.reduce(0, +)) * 0.05)
        let variants: [(String, InformedReplay)] = [
            ("told the states: the next step", InformedReplay()),
            ("told the states: the next step's pans only (no zooms)", InformedReplay(zooms: false)),
            ("told the states: pans keeping the heading (no turns)", InformedReplay(turns: false)),
            ("told the states: the next six steps (each 0.6 of the one before)", InformedReplay(horizon: 6)),
            ("told the states: the next step, keeping only (no prefetch)", InformedReplay(prefetchPerStep: 0)),
            ("told the states: the next step, no popularity", InformedReplay(popularityWeight: 0)),
            ("told only what a server sees: the next step's pans", InformedReplay(observed: true))
        ]
        let results = Mutex<[Int: String]>([:])
        DispatchQueue.concurrentPerform(iterations: variants.count + 2) { j in
            let line: String
            switch j {
            case 0:
                let bound = OfflineBound.nextUseTimesSize.hitRatio(ids, nextUse: OfflineBound.nextUses(ids), costs: costs, capacity: budget)
                line = "| next-use × size (offline, no prefetch) | \(pct(bound)) | | |"
            case 1:
                let kind = CacheConfiguration().policy
                let r = Bench.replay(trace, generator: generator, sizes: sizes, kind, budget: budget, prefetch: true)
                line = "| the default (\(kind.rawValue)) with prefetch | \(pct(r.hit)) | \(r.issued) | \(r.used) |"
            default:
                let (name, v) = variants[j - 2]
                let o = v.run(trace, steps: steps, generator: generator, sizes: sizes, budget: budget)
                line = "| \(name) | \(pct(o.hit)) | \(o.loads) | \(o.used) |"
            }
            results.withLock { $0[j] = line }
        }
        print("\n## nocache at 5% (\(mb(budget))): \(trace.count) requests, a policy told each session's state\n")
        print("| policy | hit ratio | prefetch loads | used |")
        print("|---|---|---|---|")
        let all = results.withLock { $0 }
        for j in 0..<(variants.count + 2) { print(all[j]!) }
        print(String(format: "\n(%.0f s)", Date().timeIntervalSince(started)))
    }
}
