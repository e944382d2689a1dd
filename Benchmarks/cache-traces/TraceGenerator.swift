import Foundation
import TileCache
import TileGeometry

/// One tile request of a trace.
struct Request {
    var client: Int
    var key: TileKey
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





/// Map sessions over several regions: each user opens a Zipf-popular region at a Zipf-popular
/// place and zoom 11-14, then pans (with momentum) and zooms for a geometric number of steps.
/// A viewer asks only for the tiles of each new viewport it has not fetched yet (its own HTTP
/// cache), nearest to the centre first. `concurrent` sessions run interleaved.
struct TraceGenerator {
    var regions = 12
    var placesPerRegion = 300
    var regionSkew = 1.0
    var placeSkew = 1.1
    /// Region size in tiles at zoom 8 (regions sit side by side).
    var regionSpan = 4
    var minZoom = 8
    var maxZoom = 16
    var viewportWidth = 4
    var viewportHeight = 6
    var meanSteps = 25.0
    var concurrent = 64
    var seed: UInt64 = 42

    func generate(requests target: Int) -> [Request] {
        var g = SplitMix(state: seed)
        let regionPick = Zipf(n: regions, s: regionSkew)
        let placePick = Zipf(n: placesPerRegion, s: placeSkew)
        // Places in fractional zoom-8 tile coordinates inside each region.
        let places: [[(Double, Double)]] = (0..<regions).map { r in
            (0..<placesPerRegion).map { _ in
                (Double(r * regionSpan) + Double.random(in: 0..<Double(regionSpan), using: &g),
                 Double(64) + Double.random(in: 0..<Double(regionSpan), using: &g))
            }
        }
        var out = [Request]()
        out.reserveCapacity(target + 64)
        var sessions = [Session]()
        var nextClient = 0
        func newSession() -> Session {
            defer { nextClient += 1 }
            let r = regionPick.sample(&g)
            let p = places[r][placePick.sample(&g)]
            let z = Int.random(in: 11...14, using: &g)
            let scale = Double(1 << (z - minZoom))
            let steps = max(1, Int(-meanSteps * log(Double.random(in: 0.0001..<1, using: &g))))
            return Session(client: nextClient, region: r, z: z, cx: p.0 * scale, cy: p.1 * scale, steps: steps,
                           direction: Int.random(in: 0..<8, using: &g))
        }
        while sessions.count < concurrent { sessions.append(newSession()) }
        while out.count < target {
            let i = Int.random(in: 0..<sessions.count, using: &g)
            sessions[i].step(&g, generator: self, into: &out)
            if sessions[i].steps <= 0 { sessions[i] = newSession() }
        }
        return out
    }

    /// The tile range of region `r` at zoom `z`.
    func bounds(region r: Int, z: Int) -> (x0: Double, x1: Double, y0: Double, y1: Double) {
        let scale = Double(1 << (z - minZoom))
        return (Double(r * regionSpan) * scale, Double((r + 1) * regionSpan) * scale, 64 * scale, Double(64 + regionSpan) * scale)
    }
}

struct Session {
    var client: Int
    var region: Int
    var z: Int
    var cx: Double
    var cy: Double
    var steps: Int
    var direction: Int
    var seen = Set<TileID>()
    var started = false

    static let moves = [(1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1), (0, -1), (1, -1)]

    mutating func step(_ g: inout SplitMix, generator t: TraceGenerator, into out: inout [Request]) {
        if started {
            steps -= 1
            let u = Double.random(in: 0..<1, using: &g)
            if u < 0.7 {
                if Double.random(in: 0..<1, using: &g) > 0.7 { direction = Int.random(in: 0..<8, using: &g) }
                let (dx, dy) = Session.moves[direction]
                cx += Double(dx)
                cy += Double(dy)
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
        started = true
        let b = t.bounds(region: region, z: z)
        cx = min(max(cx, b.x0 + 1), b.x1 - 1)
        cy = min(max(cy, b.y0 + 1), b.y1 - 1)
        var tiles = [(Double, TileID)]()
        let hw = Double(t.viewportWidth) / 2, hh = Double(t.viewportHeight) / 2
        for x in Int((cx - hw).rounded(.down))...Int((cx + hw).rounded(.down)) {
            for y in Int((cy - hh).rounded(.down))...Int((cy + hh).rounded(.down)) {
                guard Double(x) >= b.x0, Double(x) < b.x1, Double(y) >= b.y0, Double(y) < b.y1,
                      let id = TileID(z: z, x: x, y: y), !seen.contains(id) else { continue }
                let d = (Double(x) + 0.5 - cx) * (Double(x) + 0.5 - cx) + (Double(y) + 0.5 - cy) * (Double(y) + 0.5 - cy)
                tiles.append((d, id))
            }
        }
        for (_, id) in tiles.sorted(by: { $0.0 < $1.0 }) {
            seen.insert(id)
            out.append(Request(client: client, key: TileKey(bundle: UInt32(region), tile: id)))
        }
    }
}
