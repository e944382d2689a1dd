import Testing
import TileCache
import TileGeometry

/// Tiles of neighbourhoods (4x4 tiles) many requests went to lately, all clients together, are
/// kept over others.
@Suite struct PopularityTests {
    func at(_ x: Int) -> TileKey { TileKey(bundle: 1, tile: TileID(z: 12, x: x, y: 0)!) }

    /// A cache with room for two tiles of 1,000 bytes after requests: `early` of the tile at
    /// x 0, `filler` of a tile far away, `late` of the tile at x 0 again and `rival` of the tile
    /// at x 201. Emptied, it then takes a new tile in each of those two neighbourhoods (x 1 and
    /// x 200, read once each, the same size) and a third one elsewhere, which evicts one of them.
    /// Returns whether the one next to x 0 stayed.
    func popularOneStays(_ policy: PolicyKind = .gdsf, early: Int, filler: Int = 0, late: Int = 0, rival: Int = 0,
                         halfLife: Int = 20_000) throws -> Bool {
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
        #expect(try popularOneStays(early: 40, filler: 2_000, late: 40, rival: 60, halfLife: 100_000),
                "undecayed: 80 requests against 60")
        #expect(try !popularOneStays(early: 40, filler: 2_000, late: 40, rival: 60, halfLife: 200),
                "the first 40 decayed away: about 40 against 60")
    }
}
