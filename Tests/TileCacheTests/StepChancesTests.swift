import Synchronization
import Testing
import TrailMapTestSupport
import TileCache
import TileGeometry

/// Sessions that ask for their viewport again give the tiles of their next step a chance, and the
/// cache keeps and loads tiles by chance per byte.
@Suite(.computeThreads) struct StepChancesTests {
    func k(_ z: Int, _ x: Int, _ y: Int, bundle: UInt32 = 1) -> TileKey { TileKey(bundle: bundle, tile: TileID(z: z, x: x, y: y)!) }

    /// Asks for every tile of the 3x3 viewport centred on `x`, `y` at `now`, centre first, one
    /// millisecond apart; returns each request's prediction.
    func step(_ p: PrefetchPredictor, _ client: String, x: Int, y: Int, at now: UInt64) -> [PrefetchPredictor.Prediction] {
        var tiles = [(x, y)]
        for dx in -1...1 { for dy in -1...1 where dx != 0 || dy != 0 { tiles.append((x + dx, y + dy)) } }
        return tiles.enumerated().map { n, t in p.predict(client: client, key: k(10, t.0, t.1), now: now + UInt64(n)) }
    }

    /// Each key's chance after these predictions: the sum of their changes.
    func chances(_ predictions: [PrefetchPredictor.Prediction]) -> [TileKey: Double] {
        var sum = [TileKey: Double]()
        for p in predictions { for c in p.chances { sum[c.key, default: 0] += c.change } }
        return sum.filter { abs($0.value) > 1e-9 }
    }

    @Test func aPanGivesTheTilesOfTheNextStepsEightPansTheirChances() throws {
        let p = PrefetchPredictor()
        var all = [PrefetchPredictor.Prediction]()
        // Four steps right, half a second apart: a viewer without a cache of its own.
        for s in 0..<4 { all += step(p, "a", x: 100 + s, y: 100, at: UInt64(500 * s)) }
        let last = all.suffix(9)
        #expect(p.usefulness(client: "a")?.repeats == true)
        let c = chances(all)
        // Centred on 103,100: every one-tile pan keeps the centre in view.
        let centre = try #require(c[k(10, 103, 100)])
        #expect(centre > 0.5 && centre <= 1)
        // The column ahead (x = 105) comes into view on pans right; the one behind (x = 101) on
        // pans left, against the heading.
        let ahead = try #require(c[k(10, 105, 100)]), behind = try #require(c[k(10, 101, 100)])
        #expect(ahead > 4 * behind, "ahead \(ahead), behind \(behind)")
        #expect(centre > ahead)
        // Nothing beyond one pan, and nothing for the viewports it left.
        #expect(c.keys.allSatisfy { abs($0.tile.x - 103) <= 2 && abs($0.tile.y - 100) <= 2 })
        // The step's first request hands out its tiles likeliest first; the others none.
        let first = try #require(last.first)
        #expect(first.tiles.first == k(10, 103, 100))
        #expect(first.tiles.contains(k(10, 105, 100)))
        #expect(last.dropFirst().allSatisfy { $0.tiles.isEmpty })
    }

    @Test func aSilentSessionsChancesEndAndNothingIsLeft() {
        let p = PrefetchPredictor()
        var all = [PrefetchPredictor.Prediction]()
        for s in 0..<3 { all += step(p, "a", x: 100 + s, y: 100, at: UInt64(500 * s)) }
        #expect(!chances(all).isEmpty)
        // Within the lifetime after its last step, another client's request ends nothing.
        all.append(p.predict(client: "b", key: k(10, 500, 500), now: 1_000 + 900))
        #expect(!chances(all).isEmpty)
        // After it, the next request of anyone takes the silent session's chances back.
        all.append(p.predict(client: "c", key: k(10, 600, 600), now: 1_000 + 1_100))
        #expect(chances(all).isEmpty)
    }

    @Test func aSessionThatStopsAskingAgainTakesItsChancesBack() {
        let p = PrefetchPredictor()
        var all = [PrefetchPredictor.Prediction]()
        for s in 0..<3 { all += step(p, "a", x: 100 + s, y: 100, at: UInt64(500 * s)) }
        #expect(!chances(all).isEmpty)
        // Now only new tiles, never one asked for before: it no longer asks for its viewport again.
        for n in 0..<40 { all.append(p.predict(client: "a", key: k(10, 200 + n, 100), now: 1_500 + UInt64(10 * n))) }
        #expect(chances(all).isEmpty)
    }

    @Test func aForgottenSessionTakesItsChancesBack() {
        let p = PrefetchPredictor(maxClients: 8)
        var all = [PrefetchPredictor.Prediction]()
        // Eight viewers without a cache, far apart, their steps interleaved (a0 always first).
        for s in 0..<4 { for i in 0..<8 { all += step(p, "a\(i)", x: 100 + 50 * i + s, y: 100, at: UInt64(500 * s + 10 * i)) } }
        func left(_ i: Int) -> Int { chances(all).keys.filter { abs($0.tile.x - (103 + 50 * i)) <= 2 }.count }
        #expect((0..<8).allSatisfy { left($0) > 0 })
        // A ninth client, within every session's lifetime: the least recent are forgotten, and
        // their chances taken back in its prediction's changes.
        all.append(p.predict(client: "new", key: k(10, 900, 900), now: 1_500 + 100))
        let forgotten = (0..<8).filter { p.usefulness(client: "a\($0)") == nil }
        #expect(forgotten.contains(0) && forgotten.count < 8)
        for i in 0..<8 { #expect((left(i) == 0) == forgotten.contains(i), "a\(i): \(left(i)) keys with a chance") }
    }

    @Test func theCacheKeepsLikelyTilesOverOthersTheLeastLikelyPerByteFirst() throws {
        let cache = TileCache(budget: 100_000, policy: .gdsf)
        let tile = 10_000 - CachedTile.entryOverhead - 16
        // Two likely tiles: a small one and a large one of the same chance, held.
        _ = try cache.tile(key(1)) { sampleTile(tile) }
        _ = try cache.tile(key(2)) { sampleTile(3 * tile) }
        _ = cache.missing([], chances: [(key(1), 0.5), (key(2), 0.5)])
        // Tiles without a chance, read often, fill the rest and more.
        for x in 10..<30 {
            _ = try cache.tile(key(x)) { sampleTile(tile) }
            _ = try cache.tile(key(x)) { sampleTile(tile) }
        }
        #expect(cache.contains(key(1)) && cache.contains(key(2)), "likely tiles outlive others")
        #expect(cache.statistics.chanceKeys == 2)
        #expect((cache.statistics.likelyBytes ?? 0) > 3 * tile)
        // With only likely tiles left to evict, the least likely per byte (the large one) goes first.
        _ = cache.missing([], chances: (10..<30).map { (key($0), 0.5) })
        _ = try cache.tile(key(40)) { sampleTile(tile) }
        #expect(!cache.contains(key(2)) && cache.contains(key(1)))
        // A chance taken back leaves the tile to GDSF's order: it goes before tiles still likely
        // (after key 40, which came in before it left the likely ones, once the large tile's
        // room is taken).
        let likelyHeld = (10..<30).filter { cache.contains(key($0)) }.count
        _ = cache.missing([], chances: [(key(1), -0.5)])
        for x in 41...45 { _ = try cache.tile(key(x)) { sampleTile(tile) } }
        #expect(!cache.contains(key(1)) && !cache.contains(key(40)))
        #expect((10..<30).filter { cache.contains(key($0)) }.count == likelyHeld)
        // Chances are kept for tiles not held too (key 2, and 10-29).
        #expect(cache.statistics.chanceKeys == 21)
    }

    @Test func aPredictionDisplacesOnlyTilesLessLikelyPerByte() throws {
        let cache = TileCache(budget: 100_000, policy: .gdsf)
        let tile = 10_000 - CachedTile.entryOverhead - 16
        for x in 0..<10 { _ = try cache.tile(key(x)) { sampleTile(tile) } }
        _ = cache.missing([], chances: (0..<10).map { (key($0), 0.5) })
        #expect(cache.statistics.entries == 10)
        // A prediction less likely than every held tile is not let in.
        _ = cache.missing([], chances: [(key(20), 0.1), (key(21), 0.9)])
        #expect(cache.prefetch(key(20)) { sampleTile(tile) })
        #expect(!cache.contains(key(20)))
        #expect(cache.statistics.prefetchesRejected == 1)
        // One likelier is, in place of one held tile.
        #expect(cache.prefetch(key(21)) { sampleTile(tile) })
        #expect(cache.contains(key(21)))
        #expect((0..<10).filter { cache.contains(key($0)) }.count == 9)
    }

    @Test func chancesAreBoundedAndAStaleOneIsDropped() throws {
        let cache = TileCache(budget: 100_000, policy: .gdsf)
        // A chance taken back before it was given (changes out of order) is not kept negative.
        _ = cache.missing([], chances: [(key(9), -0.5)])
        #expect(cache.statistics.chanceKeys == 0)
        // At most `maxChanceKeys` keys have one.
        let many = (0..<(TileCache.maxChanceKeys + 10)).map { (key: key($0, z: 20), change: 0.1) }
        _ = cache.missing([], chances: many)
        #expect(cache.statistics.chanceKeys == TileCache.maxChanceKeys)
        _ = cache.missing([], chances: many.map { ($0.key, -$0.change) })
        #expect(cache.statistics.chanceKeys == 0)
        // A held tile whose chance nothing touches for long goes back among the others.
        _ = try cache.tile(key(1)) { sampleTile(1_000) }
        _ = cache.missing([], chances: [(key(1), 0.5)])
        #expect((cache.statistics.likelyBytes ?? 0) > 0)
        for _ in 0..<20_480 { _ = cache.missing([], chances: [(key(2), 0)]) }
        #expect(cache.statistics.chanceKeys == 0)
        #expect(cache.statistics.likelyBytes == 0)
    }

    @Test func budgetHoldsWhileSessionsGiveChancesConcurrently() async {
        let budget = 300_000
        let cache = TileCache(budget: budget, policy: .gdsf, countsRequests: true)
        let predictor = PrefetchPredictor(places: cache)
        let violations = Atomic<Int>(0), given = Atomic<Int>(0)
        await onThreads(8) { i in
            var g = SystemRandomNumberGenerator()
            var x = 100 + 50 * i
            for s in 0..<60 {
                // The whole 3x3 viewport again at each step, centre first; a pan, sometimes a
                // jump; now and then a reservation.
                var tiles = [(x, 100)]
                for dx in -1...1 { for dy in -1...1 where dx != 0 || dy != 0 { tiles.append((x + dx, 100 + dy)) } }
                for (n, t) in tiles.enumerated() {
                    let key = k(10, t.0, t.1, bundle: UInt32(i % 2))
                    let size = Int.random(in: 500..<20_000, using: &g)
                    _ = try? cache.tile(key) { sampleTile(size) }
                    let prediction = predictor.predict(client: "c\(i)", key: key, now: UInt64(500 * s + n))
                    given.add(prediction.chances.count, ordering: .relaxed)
                    for p in cache.plan(prediction, after: key) { cache.prefetch(p) { sampleTile(size) } }
                    let st = cache.statistics
                    if st.bytes + st.reservedBytes > budget || st.bytes < 0 { violations.add(1, ordering: .relaxed) }
                }
                if s % 7 == 6 { x += 40 } else { x += 1 }
                if s % 13 == 12, cache.reserve(40_000) { cache.release(40_000) }
            }
        }
        #expect(given.load(ordering: .relaxed) > 0, "the sessions gave chances")
        #expect(violations.load(ordering: .relaxed) == 0)
        let st = cache.statistics
        #expect(st.bytes + st.reservedBytes <= budget)
        // Once every session is silent, the next request takes all chances back.
        let later = predictor.predict(client: "late", key: k(10, 900, 900), now: 1_000_000)
        _ = cache.plan(later, after: k(10, 900, 900))
        #expect(cache.statistics.chanceKeys == 0)
        #expect(cache.statistics.likelyBytes == 0)
    }
}
