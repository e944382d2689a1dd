import Foundation
import TileCache
import TileGeometry

/// One tile request of a trace, at `time` milliseconds into it.
struct Request {
    var client: Int
    var key: TileKey
    var time: UInt64
}

/// Deterministic random numbers (SplitMix64), so every run replays the same trace.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Picks 0..<n with probability proportional to 1/(i+1)^s.
struct Zipf {
    let cumulative: [Double]
    init(n: Int, s: Double) {
        var acc = 0.0
        cumulative = (0..<n).map { i in
            acc += 1 / pow(Double(i + 1), s)
            return acc
        }
    }
    func sample(_ g: inout SplitMix) -> Int {
        let u = Double.random(in: 0..<cumulative[cumulative.count - 1], using: &g)
        var lo = 0, hi = cumulative.count - 1
        while lo < hi {
            let mid = (lo + hi) / 2
            if cumulative[mid] < u { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }
}

/// How the viewers of a trace behave.
enum TraceModel: String, CaseIterable {
    /// Viewers with their own HTTP cache (a tile is asked for once per session), 256-px tiles,
    /// one region per session: the original generator.
    case cached
    /// No client-side cache: every pan or zoom step asks for the whole viewport again.
    case nocache
    /// Like `cached`, but a step jumps to another popular place (often another region) with
    /// probability 0.1.
    case jumps
    /// 512-px tiles: a viewport of 2x3 tiles (instead of 4x6), a pan step moves half a tile,
    /// and a tile holds four times the pixels (3.5 times the bytes).
    case tiles512
    /// Like `cached`, but each session follows one of its region's trails (winding lines) at
    /// zoom 13-15: most steps move the viewport one tile along the trail, some zoom in or out.
    case trails

    var clientCache: Bool { self != .nocache }
    var jumpProbability: Double { self == .jumps ? 0.1 : 0 }
    var viewport: (w: Double, h: Double) { self == .tiles512 ? (2, 3) : (4, 6) }
    var panStep: Double { self == .tiles512 ? 0.5 : 1 }
    var sizeFactor: Double { self == .tiles512 ? 3.5 : 1 }
}

/// Map sessions over several regions: each user opens a Zipf-popular region at a Zipf-popular
/// place and zoom 11-14, then pans (with momentum) and zooms for a geometric number of steps,
/// 250-900 ms apart. A viewer asks for the tiles of each new viewport nearest to the centre
/// first (with its own cache: only those it has not fetched yet). `concurrent` sessions run at
/// once; requests come in time order.
struct TraceGenerator {
    var model = TraceModel.cached
    var regions = 12
    var placesPerRegion = 300
    var regionSkew = 1.0
    var placeSkew = 1.1
    /// Region size in tiles at zoom 8 (regions sit side by side).
    var regionSpan = 4
    var minZoom = 8
    var maxZoom = 16
    var meanSteps = 25.0
    var concurrent = 64
    var seed: UInt64 = 42

    /// Trails per region for the `trails` model.
    var trailsPerRegion = 60

    /// Region `r`'s trails as points in fractional zoom-`minZoom` tile coordinates: winding lines
    /// of 200 points about a fiftieth of a tile apart, kept inside the region.
    func trails(region r: Int) -> [[(x: Double, y: Double)]] {
        var g = SplitMix(state: seed &+ UInt64(r) &* 7919)
        let b = bounds(region: r, z: minZoom)
        return (0..<trailsPerRegion).map { _ in
            var x = Double.random(in: b.x0 + 0.5..<b.x1 - 0.5, using: &g), y = Double.random(in: b.y0 + 0.5..<b.y1 - 0.5, using: &g)
            var heading = Double.random(in: 0..<(2 * .pi), using: &g)
            var line = [(x: x, y: y)]
            for _ in 1..<200 {
                heading += Double.random(in: -0.35...0.35, using: &g)
                var nx = x + 0.02 * cos(heading), ny = y + 0.02 * sin(heading)
                if nx < b.x0 + 0.1 || nx > b.x1 - 0.1 || ny < b.y0 + 0.1 || ny > b.y1 - 0.1 {
                    heading += .pi
                    nx = x + 0.02 * cos(heading)
                    ny = y + 0.02 * sin(heading)
                }
                x = nx
                y = ny
                line.append((x, y))
            }
            return line
        }
    }

    /// Region `r`'s trails in longitude and latitude, as a bundle's trail table holds them.
    func trailLonLats(region r: Int) -> [[(lon: Double, lat: Double)]] {
        let n = Double(1 << minZoom)
        return trails(region: r).map { line in
            line.map { (lon: $0.x / n * 360 - 180, lat: atan(sinh(.pi * (1 - 2 * $0.y / n))) * 180 / .pi) }
        }
    }

    func generate(requests target: Int) -> [Request] {
        var steps = [StepState]()
        return generate(requests: target, steps: &steps, logging: false)
    }

    /// The trace, and each step's state as the generator drew it (`InformedReplay`).
    func generateWithSteps(requests target: Int) -> (requests: [Request], steps: [StepState]) {
        var steps = [StepState]()
        let requests = generate(requests: target, steps: &steps, logging: true)
        return (requests, steps)
    }

    private func generate(requests target: Int, steps stepLog: inout [StepState], logging: Bool) -> [Request] {
        var g = SplitMix(state: seed)
        let regionTrails = model == .trails ? (0..<regions).map { trails(region: $0) } : []
        let trailPick = Zipf(n: trailsPerRegion, s: placeSkew)
        let regionPick = Zipf(n: regions, s: regionSkew)
        let placePick = Zipf(n: placesPerRegion, s: placeSkew)
        // Places in fractional zoom-8 tile coordinates inside each region.
        let places: [[(Double, Double)]] = (0..<regions).map { r in
            (0..<placesPerRegion).map { _ in
                (
                    Double(r * regionSpan) + Double.random(in: 0..<Double(regionSpan), using: &g),
                    Double(64) + Double.random(in: 0..<Double(regionSpan), using: &g)
                )
            }
        }
        var out = [Request]()
        out.reserveCapacity(target + 64)
        var sessions = [Session]()
        var nextClient = 0
        func place(_ s: inout Session) {
            s.region = regionPick.sample(&g)
            let p = places[s.region][placePick.sample(&g)]
            s.z = Int.random(in: 11...14, using: &g)
            let scale = Double(1 << (s.z - minZoom))
            s.cx = p.0 * scale
            s.cy = p.1 * scale
            s.direction = Int.random(in: 0..<8, using: &g)
            if model == .trails {
                s.trail = regionTrails[s.region][trailPick.sample(&g)]
                s.along = Int.random(in: 0..<s.trail.count, using: &g)
                s.forward = Bool.random(using: &g)
                s.z = Int.random(in: 13...15, using: &g)
                s.onTrail(minZoom: minZoom)
            }
        }
        func newSession(at time: UInt64) -> Session {
            defer { nextClient += 1 }
            var s = Session(
                client: nextClient, steps: max(1, Int(-meanSteps * log(Double.random(in: 0.0001..<1, using: &g)))),
                next: time + UInt64.random(in: 0...500, using: &g))
            place(&s)
            return s
        }
        while sessions.count < concurrent { sessions.append(newSession(at: 0)) }
        while out.count < target {
            var i = 0
            for j in sessions.indices where sessions[j].next < sessions[i].next { i = j }
            let now = sessions[i].next
            if sessions[i].started, Double.random(in: 0..<1, using: &g) < model.jumpProbability {
                place(&sessions[i])
                sessions[i].steps -= 1
                sessions[i].emit(now, generator: self, into: &out)
            } else {
                sessions[i].step(&g, now: now, generator: self, into: &out)
            }
            if logging {
                let s = sessions[i]
                stepLog.append(
                    StepState(
                        client: s.client, firstRequest: out.count - s.lastEmitted, time: now, region: s.region, z: s.z, cx: s.cx, cy: s.cy,
                        direction: s.direction))
            }
            sessions[i].next = now + UInt64.random(in: 250...900, using: &g)
            if sessions[i].steps <= 0 { sessions[i] = newSession(at: now) }
        }
        return out
    }

    /// The tile range of region `r` at zoom `z`.
    func bounds(region r: Int, z: Int) -> (x0: Double, x1: Double, y0: Double, y1: Double) {
        let scale = Double(1 << (z - minZoom))
        return (Double(r * regionSpan) * scale, Double((r + 1) * regionSpan) * scale, 64 * scale, Double(64 + regionSpan) * scale)
    }

    /// Whether a key is a tile of its region (what a bundle holds).
    func exists(_ key: TileKey) -> Bool {
        let z = key.tile.z
        guard z >= minZoom, z <= maxZoom, Int(key.bundle) < regions else { return false }
        let b = bounds(region: Int(key.bundle), z: z)
        return Double(key.tile.x) >= b.x0 && Double(key.tile.x) < b.x1 && Double(key.tile.y) >= b.y0 && Double(key.tile.y) < b.y1
    }
}

/// A session's state after one of its steps (the viewport it asked for), as the generator drew it.
struct StepState {
    var client: Int
    /// The index of the step's first request in the trace.
    var firstRequest: Int
    var time: UInt64
    var region: Int
    var z: Int
    var cx: Double
    var cy: Double
    var direction: Int
}

struct Session {
    var client: Int
    var region = 0
    var z = 0
    var cx = 0.0
    var cy = 0.0
    var steps: Int
    var direction = 0
    var next: UInt64
    var seen = Set<TileID>()
    var started = false
    /// Requests the last step emitted.
    var lastEmitted = 0
    /// The trail followed (`trails` model): its points, the index reached and the way along it.
    var trail: [(x: Double, y: Double)] = []
    var along = 0
    var forward = true

    init(client: Int, steps: Int, next: UInt64) {
        self.client = client
        self.steps = steps
        self.next = next
    }

    static let moves = [(1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1), (0, -1), (1, -1)]

    /// Centres the viewport on the trail's point reached.
    mutating func onTrail(minZoom: Int) {
        let scale = Double(1 << (z - minZoom))
        cx = trail[along].x * scale
        cy = trail[along].y * scale
    }

    /// One step along the trail (one tile at this zoom) or a zoom.
    mutating func stepAlongTrail(_ g: inout SplitMix, generator t: TraceGenerator) {
        let u = Double.random(in: 0..<1, using: &g)
        if u < 0.85 {
            // Points are a fiftieth of a zoom-8 tile apart: a tile at zoom z is 50 / 2^(z-8) of them.
            let points = max(1, Int((t.model.panStep * 50 / Double(1 << (z - t.minZoom))).rounded()))
            for _ in 0..<points {
                if forward ? along + 1 >= trail.count : along == 0 { forward.toggle() }
                along += forward ? 1 : -1
            }
        } else if u < 0.925, z < t.maxZoom {
            z += 1
        } else if z > 13 {
            z -= 1
        }
        onTrail(minZoom: t.minZoom)
    }

    mutating func step(_ g: inout SplitMix, now: UInt64, generator t: TraceGenerator, into out: inout [Request]) {
        if started, !trail.isEmpty {
            steps -= 1
            stepAlongTrail(&g, generator: t)
        } else if started {
            steps -= 1
            let u = Double.random(in: 0..<1, using: &g)
            if u < 0.7 {
                if Double.random(in: 0..<1, using: &g) > 0.7 { direction = Int.random(in: 0..<8, using: &g) }
                let (dx, dy) = Session.moves[direction]
                cx += Double(dx) * t.model.panStep
                cy += Double(dy) * t.model.panStep
            } else if u < 0.85, z < t.maxZoom {
                z += 1
                cx *= 2
                cy *= 2
            } else if z > t.minZoom + 2 {
                z -= 1
                cx /= 2
                cy /= 2
            }
        }
        emit(now, generator: t, into: &out)
    }

    /// Asks for the viewport's tiles (those not fetched yet, with a client cache), centre first.
    mutating func emit(_ now: UInt64, generator t: TraceGenerator, into out: inout [Request]) {
        started = true
        let b = t.bounds(region: region, z: z)
        cx = min(max(cx, b.x0 + 1), b.x1 - 1)
        cy = min(max(cy, b.y0 + 1), b.y1 - 1)
        var tiles = [(Double, TileID)]()
        let hw = t.model.viewport.w / 2, hh = t.model.viewport.h / 2
        for x in Int((cx - hw).rounded(.down))...Int((cx + hw).rounded(.down)) {
            for y in Int((cy - hh).rounded(.down))...Int((cy + hh).rounded(.down)) {
                guard Double(x) >= b.x0, Double(x) < b.x1, Double(y) >= b.y0, Double(y) < b.y1,
                    let id = TileID(z: z, x: x, y: y)
                else { continue }
                if t.model.clientCache, seen.contains(id) { continue }
                let d = (Double(x) + 0.5 - cx) * (Double(x) + 0.5 - cx) + (Double(y) + 0.5 - cy) * (Double(y) + 0.5 - cy)
                tiles.append((d, id))
            }
        }
        lastEmitted = tiles.count
        for (n, (_, id)) in tiles.sorted(by: { $0.0 < $1.0 }).enumerated() {
            if t.model.clientCache { seen.insert(id) }
            out.append(Request(client: client, key: TileKey(bundle: UInt32(region), tile: id), time: now + UInt64(n)))
        }
    }
}
