import Testing
import TrailMapTestSupport
import TileCache
import TileGeometry

/// Tiles of neighbourhoods (4x4 tiles) many requests went to lately, all clients together, are
/// kept over others.
@Suite(.computeThreads) struct PopularityTests {
    func at(_ x: Int) -> TileKey { TileKey(bundle: 1, tile: TileID(z: 12, x: x, y: 0)!) }

    /// A cache with room for two tiles of 1,000 bytes after requests: `early` of the tile at
    /// x 0, `filler` of a tile far away, `late` of the tile at x 0 again and `rival` of the tile
    /// at x 201. Emptied, it then takes a new tile in each of those two neighbourhoods (x 1 and
    /// x 200, read once each, the same size) and a third one elsewhere, which evicts one of them.
    /// Returns whether the one next to x 0 stayed.
    func popularOneStays(
        _ policy: PolicyKind = .gdsf, early: Int, filler: Int = 0, late: Int = 0, rival: Int = 0,
        halfLife: Int = 20_000
    ) throws -> Bool {
        let cost = sampleTile(1000).cost
        let cache = TileCache(budget: 2 * cost + cost / 2, policy: policy, popularityHalfLife: halfLife)
        func ask(_ x: Int, _ n: Int) throws { for _ in 0..<n { _ = try cache.tile(at(x)) { sampleTile(1000) } } }
        try ask(0, early)
        try ask(400, filler)
        try ask(0, late)
        try ask(201, rival)
        cache.removeAll()
        try ask(1, 1)
        try ask(200, 1)
        #expect(cache.contains(at(1)) && cache.contains(at(200)))
        try ask(800, 1)
        #expect(cache.contains(at(1)) != cache.contains(at(200)))
        return cache.contains(at(1))
    }

    @Test func aNewTileWhereManyWentOutlivesOneWhereNobodyWent() throws {
        #expect(try popularOneStays(early: 40), "read as often and as large, but where many sessions went")
        // The same requests through a policy that ignores neighbourhoods: the older one leaves.
        #expect(try !popularOneStays(.lru, early: 40))
        // And with nobody anywhere, GDSF too evicts the older of two equal tiles.
        #expect(try !popularOneStays(early: 0))
    }

    @Test func popularityDecays() throws {
        // 80 requests went next to x 1, 40 of them before 2,000 elsewhere; 60 went next to x 200.
        #expect(
            try popularOneStays(early: 40, filler: 2_000, late: 40, rival: 60, halfLife: 100_000),
            "undecayed: 80 requests against 60")
        #expect(
            try !popularOneStays(early: 40, filler: 2_000, late: 40, rival: 60, halfLife: 200),
            "the first 40 decayed away: about 40 against 60")
    }

    /// The counts as the cache keeps them match halving every count at once every `halfLife`
    /// requests (a count below one half is forgotten at a halving), over a random walk of requests
    /// around a few places, read back for every neighbourhood after each request.
    @Test func lazyHalvingMatchesHalvingEveryCount() throws {
        let halfLife = 7
        let cache = TileCache(budget: 1 << 20, policy: .lru, popularityHalfLife: halfLife, countsRequests: true)
        var eager = [[Int]: Double]()
        var nextHalving = 0
        var rng = SystemRandomNumberGenerator()
        let places = [(0, 0), (4, 0), (8, 4), (400, 12)]
        for tick in 1...300 {
            if tick >= nextHalving {
                nextHalving = tick + halfLife
                eager = eager.filter { $0.value >= 0.5 }.mapValues { $0 / 2 }
            }
            let (px, py) = places[Int.random(in: 0..<(tick < 150 ? places.count : 2), using: &rng)]
            let x = px + Int.random(in: 0...3, using: &rng), y = py + Int.random(in: 0...3, using: &rng)
            _ = try cache.tile(TileKey(bundle: 2, tile: TileID(z: 12, x: x, y: y)!)) { sampleTile(10) }
            eager[[x >> 2, y >> 2], default: 0] += 1
            for (px, py) in places {
                let got = cache.popularity(bundle: 2, z: 12, x: px + 1, y: py + 2)
                #expect(got == eager[[px >> 2, py >> 2]] ?? 0, "tick \(tick), place \(px),\(py)")
            }
        }
        // Other bundles, zooms and places beyond the zoom's tiles have none.
        #expect(cache.popularity(bundle: 3, z: 12, x: 1, y: 1) == 0)
        #expect(cache.popularity(bundle: 2, z: 11, x: 1, y: 1) == 0)
        #expect(cache.popularity(bundle: 2, z: 12, x: -1, y: 0) == 0)
    }

    /// A cache counts requests only for a policy that weighs them, unless told to (for a predictor).
    @Test func requestsAreCountedWhenSomethingReadsThem() throws {
        let k = TileKey(bundle: 1, tile: TileID(z: 5, x: 1, y: 1)!)
        for (policy, told, counted) in [(PolicyKind.gdsf, nil, true), (.lru, nil, false), (.lru, true, true), (.gdsf, false, false)] {
            let cache = TileCache(budget: 1 << 20, policy: policy, countsRequests: told)
            _ = try cache.tile(k) { sampleTile(10) }
            _ = try cache.tile(k) { sampleTile(10) }
            #expect(cache.countsRequests == counted)
            #expect(cache.popularity(bundle: 1, z: 5, x: 1, y: 1) == (counted ? 2 : 0), "\(policy) \(String(describing: told))")
        }
    }
}
