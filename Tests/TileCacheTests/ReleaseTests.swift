import Synchronization
import Testing
import TrailMapTestSupport
import TileCache
import TileGeometry

/// Tiles a session that asks for its viewport again leaves behind: who counts as such a session,
/// and how much work one request does for it. (Expected tiles and releases are what a predictor
/// without chances gives such a session: `chanceLifetime: nil`; see `StepChancesTests`.)
@Suite(.computeThreads) struct ReleaseTests {
    func k(_ z: Int, _ x: Int, _ y: Int, bundle: UInt32 = 1) -> TileKey { TileKey(bundle: bundle, tile: TileID(z: z, x: x, y: y)!) }

    /// Asks for every tile of a viewport at `now`, centre first, one millisecond apart; returns
    /// each request's prediction.
    func step(
        _ p: PrefetchPredictor, _ client: String, z: Int, x: ClosedRange<Int>, y: ClosedRange<Int>, at now: UInt64
    )
        -> [PrefetchPredictor.Prediction]
    {
        var tiles: [(x: Int, y: Int)] = []
        for tx in x { for ty in y { tiles.append((tx, ty)) } }
        let cx2 = x.lowerBound + x.upperBound, cy2 = y.lowerBound + y.upperBound
        tiles.sort { (abs(2 * $0.x - cx2) + abs(2 * $0.y - cy2), $0.x, $0.y) < (abs(2 * $1.x - cx2) + abs(2 * $1.y - cy2), $1.x, $1.y) }
        return tiles.enumerated().map { n, t in p.predict(client: client, key: k(z, t.x, t.y), now: now + UInt64(n)) }
    }

    @Test func aClientAskingForOneTileAgainAndAgainIsNotAViewportViewer() {
        let p = PrefetchPredictor(chanceLifetime: nil)
        // A load generator: one tile, in runs with pauses between them (new bursts each time).
        var last: PrefetchPredictor.Prediction?
        for i in 0..<40 {
            for j in 0..<5 { last = p.predict(client: "wrk", key: k(6, 33, 22), now: UInt64(i * 1000 + j)) }
        }
        #expect(last?.repeatsViewport == false, "one tile asked for again is not a viewport drawn again")
        // Then every tile of zooms 0-6 in random order: nothing is released, nothing expected again.
        var tiles = (0...6).flatMap { z in (0..<(1 << z)).flatMap { x in (0..<(1 << z)).map { y in k(z, x, y) } } }
        var g = SystemRandomNumberGenerator()
        tiles.shuffle(using: &g)
        var released = 0, repeating = 0
        for (n, t) in tiles.enumerated() {
            let prediction = p.predict(client: "wrk", key: t, now: 100_000 + UInt64(n / 50))
            released += prediction.released.count
            if prediction.repeatsViewport { repeating += 1 }
        }
        #expect(released == 0 && repeating == 0)
        // A viewer without its own cache (the same viewport again, panning) still is one.
        var viewer = [PrefetchPredictor.Prediction]()
        for s in 0..<4 { viewer = step(p, "viewer", z: 10, x: (100 + s)...(103 + s), y: 100...103, at: UInt64(1000 * s)) }
        #expect(viewer.last?.repeatsViewport == true)
    }

    @Test func tilesLeftBehindAreHandedOutAFewPerRequestUntilAllAre() {
        let p = PrefetchPredictor(chanceLifetime: nil)
        #expect(p.releasesPerRequest > 0)
        // A viewer without a cache with a 12x12 viewport, panning right one tile a step.
        var predictions = [PrefetchPredictor.Prediction]()
        for s in 0..<4 {
            predictions += step(p, "a", z: 12, x: (100 + s)...(111 + s), y: 100...111, at: UInt64(1000 * s))
        }
        #expect(predictions.last?.repeatsViewport == true)
        // It jumps far away: its whole viewport (144 tiles) is left behind at once.
        let left = Set((103...114).flatMap { x in (100...111).map { k(12, x, $0) } })
        var released = Set<TileKey>()
        for s in 0..<2 {
            for prediction in step(p, "a", z: 12, x: 500...511, y: 500...511, at: UInt64(10_000 + 1000 * s)) {
                #expect(prediction.released.count <= p.releasesPerRequest, "a request's share of the releases is bounded")
                released.formUnion(prediction.released)
            }
        }
        #expect(left.isSubset(of: released), "every tile left behind is handed out over the next requests")
    }

    @Test func noReleasesWhenTurnedOff() {
        let p = PrefetchPredictor(releasesPerRequest: 0, chanceLifetime: nil)
        var all = [PrefetchPredictor.Prediction]()
        for s in 0..<4 { all += step(p, "a", z: 10, x: (100 + s)...(103 + s), y: 100...103, at: UInt64(1000 * s)) }
        all += step(p, "a", z: 10, x: 300...303, y: 100...103, at: 10_000)
        #expect(all.last?.repeatsViewport == true)
        #expect(all.allSatisfy { $0.released.isEmpty && $0.keyAhead })
    }

    @Test func budgetHoldsWhileRepeatingSessionsReleaseConcurrently() async {
        let budget = 300_000
        let cache = TileCache(budget: budget, policy: .gdsf, countsRequests: true)
        let predictor = PrefetchPredictor(places: cache, chanceLifetime: nil)
        let violations = Atomic<Int>(0), releases = Atomic<Int>(0)
        await onThreads(8) { i in
            var g = SystemRandomNumberGenerator()
            var x = 100 + 50 * i, y = 100
            for s in 0..<60 {
                // The whole 4x4 viewport again at each step; a pan, sometimes a jump or a zoom.
                let z = s % 10 == 9 ? 11 : 10
                for dx in 0..<4 {
                    for dy in 0..<4 {
                        let key = k(z, x + dx, y + dy, bundle: UInt32(i % 2))
                        let size = Int.random(in: 500..<20_000, using: &g)
                        _ = try? cache.tile(key) { sampleTile(size) }
                        let prediction = predictor.predict(client: "c\(i)", key: key, now: UInt64(1000 * s + 4 * dx + dy))
                        releases.add(prediction.released.count, ordering: .relaxed)
                        for p in cache.plan(prediction, after: key) { cache.prefetch(p) { sampleTile(size) } }
                        let st = cache.statistics
                        if st.bytes + st.reservedBytes > budget || st.bytes < 0 { violations.add(1, ordering: .relaxed) }
                    }
                }
                if s % 7 == 6 { x += 40 } else { x += 1 }
                if s % 13 == 12, cache.reserve(40_000) { cache.release(40_000) }
            }
        }
        #expect(releases.load(ordering: .relaxed) > 0, "the sessions released tiles")
        #expect(violations.load(ordering: .relaxed) == 0)
        let st = cache.statistics
        #expect(st.bytes + st.reservedBytes <= budget)
    }
}
