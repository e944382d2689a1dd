import Testing
import TrailMapTestSupport
import TileCache
import TileGeometry
import Synchronization

@Suite(.computeThreads) struct PrefetchPredictorTests {
    func k(_ z: Int, _ x: Int, _ y: Int) -> TileKey { TileKey(bundle: 1, tile: TileID(z: z, x: x, y: y)!) }

    /// Asks for every tile of a viewport at `now`, centre first (tiles one millisecond apart);
    /// returns all predictions made meanwhile.
    @discardableResult
    func view(_ p: PrefetchPredictor, _ client: String, z: Int, x: ClosedRange<Int>, y: ClosedRange<Int>, at now: UInt64) -> [TileKey] {
        let cx2 = x.lowerBound + x.upperBound, cy2 = y.lowerBound + y.upperBound
        func distance(_ t: (x: Int, y: Int)) -> Int { abs(2 * t.x - cx2) + abs(2 * t.y - cy2) }
        var tiles: [(x: Int, y: Int)] = []
        for tx in x { for ty in y { tiles.append((tx, ty)) } }
        tiles.sort { (distance($0), $0.x, $0.y) < (distance($1), $1.x, $1.y) }
        var out = [TileKey]()
        for (n, t) in tiles.enumerated() { out += p.observe(client: client, key: k(z, t.x, t.y), now: now + UInt64(n)) }
        return out
    }

    @Test func aPanPredictsTheRingAhead() {
        let p = PrefetchPredictor()
        #expect(view(p, "a", z: 10, x: 99...101, y: 99...101, at: 0).isEmpty, "nothing to go on yet")
        // One step right: a viewer with its own cache asks only for the new column.
        let next = view(p, "a", z: 10, x: 102...102, y: 99...101, at: 1000)
        #expect(next.first == k(10, 103, 100), "the centre of the ring first")
        #expect(Set(next) == [k(10, 103, 99), k(10, 103, 100), k(10, 103, 101)])
        // Then a step of two: the pan speeds up, so the ring ahead is further and wider.
        let faster = view(p, "a", z: 10, x: 103...104, y: 99...101, at: 2000)
        #expect(Set(faster).isSuperset(of: (105...107).flatMap { x in (99...101).map { k(10, x, $0) } }))
        #expect(faster.allSatisfy { $0.tile.x > 103 })
    }

    @Test func aPanOfAViewerWithoutACachePredictsTheSameRing() {
        let p = PrefetchPredictor()
        view(p, "a", z: 10, x: 99...101, y: 99...101, at: 0)
        // The whole viewport again, one tile lower.
        let next = view(p, "a", z: 10, x: 99...101, y: 100...102, at: 1000)
        #expect(Set(next) == [k(10, 99, 103), k(10, 100, 103), k(10, 101, 103)])
    }

    @Test func aZoomInPredictsTheChildrenUnderTheViewport() {
        let p = PrefetchPredictor()
        view(p, "a", z: 10, x: 100...103, y: 100...103, at: 0)
        // Zoom in: the viewer asks for the centre of its new viewport first.
        let next = p.observe(client: "a", key: k(11, 203, 203), now: 1000)
        #expect(next.count == 16, "a viewport's worth of zoom 12")
        // The zoom-11 viewport: 4x4 tiles around 203/203, that is 202...205.
        #expect(
            next.allSatisfy { $0.tile.z == 12 && (202...205).contains($0.tile.parent!.x) && (202...205).contains($0.tile.parent!.y) },
            "every prediction is a child of a tile in the zoom-11 viewport")
        #expect(next.prefix(4).allSatisfy { abs($0.tile.x - 406) <= 1 && abs($0.tile.y - 406) <= 1 }, "the centre first")
        // And zooming out predicts the parents' level around the viewport.
        view(p, "b", z: 11, x: 200...203, y: 200...203, at: 0)
        let out = p.observe(client: "b", key: k(10, 101, 101), now: 1000)
        #expect(out.first?.tile.z == 9 && out.contains(k(9, 50, 50)))
    }

    /// A viewer with its own cache: pans right one column a step at zoom 10, and when
    /// `zoomEvery` > 0, zooms in and back out every `zoomEvery` steps. Returns the prediction of
    /// the last pan.
    func panAndZoom(_ p: PrefetchPredictor, _ client: String, steps: Int, zoomEvery: Int) -> PrefetchPredictor.Prediction {
        view(p, client, z: 10, x: 100...103, y: 100...103, at: 0)
        var right = 103
        var now: UInt64 = 1000
        var last = PrefetchPredictor.Prediction(tiles: [])
        for step in 1...steps {
            if zoomEvery > 0, step % zoomEvery == 0 {
                // In about the centre, then back out to the same viewport.
                let cx = 2 * (right - 1), cy = 2 * 102
                view(p, client, z: 11, x: cx - 2...cx + 1, y: cy - 2...cy + 1, at: now)
                view(p, client, z: 10, x: right - 3...right, y: 100...103, at: now + 1000)
                now += 2000
                continue
            }
            right += 1
            // The first request of the new column moves the viewport: its prediction is the step's.
            last = p.predict(client: client, key: k(10, right, 102), now: now)
            for (n, y) in [101, 103, 100].enumerated() { _ = p.predict(client: client, key: k(10, right, y), now: now + UInt64(n) + 1) }
            now += 1000
        }
        return last
    }

    @Test func aSessionThatZoomsOftenGetsTheNextZoomLevelsUnderItsViewport() throws {
        let p = PrefetchPredictor()
        let last = panAndZoom(p, "zooms", steps: 40, zoomEvery: 4)
        #expect(!last.tiles.isEmpty, "the ring ahead, as for any pan")
        let zoomTiles = last.zoomTiles.map(\.tile)
        let parents = zoomTiles.filter { $0.z == 9 }, children = zoomTiles.filter { $0.z == 11 }
        // The viewport predicted next: 4x4 tiles ending one column right of the last one.
        let next = try #require(last.tiles.first).tile.x
        let columns = (next - 3)...next
        #expect(!parents.isEmpty && parents.allSatisfy { columns.contains(2 * $0.x) || columns.contains(2 * $0.x + 1) })
        #expect(Set(parents.map(\.y)) == [50, 51], "the parents under rows 100-103")
        #expect(children.count == 16, "a viewport's worth of children")
        #expect(children.allSatisfy { columns.contains($0.x / 2) && (100...103).contains($0.y / 2) }, "under the viewport")
        #expect(Set(children.map { $0.x / 2 }).count == 2 && Set(children.map { $0.y / 2 }) == [101, 102], "about its centre")
        #expect(!last.zoomTiles.contains { last.tiles.contains($0) }, "apart from the ring")
    }

    @Test func aSessionThatNeverZoomsGetsNoZoomLevels() {
        let p = PrefetchPredictor()
        let last = panAndZoom(p, "pans", steps: 30, zoomEvery: 0)
        #expect(!last.tiles.isEmpty)
        #expect(last.zoomTiles.isEmpty)
        // Once sessions zoom, a new one starts from their habit: its first pans predict zooms.
        for c in 0..<8 { _ = panAndZoom(p, "zooms\(c)", steps: 60, zoomEvery: 3) }
        let fresh = panAndZoom(p, "new", steps: 2, zoomEvery: 0)
        #expect(!fresh.zoomTiles.isEmpty, "a new session among sessions that zoom")
    }

    @Test func aZoomElsewhereIsAJumpNotAZoom() {
        let p = PrefetchPredictor()
        view(p, "a", z: 10, x: 100...102, y: 100...102, at: 0)
        #expect(p.observe(client: "a", key: k(11, 400, 400), now: 1000).isEmpty, "200/200 is not under the viewport")
        view(p, "b", z: 10, x: 100...102, y: 100...102, at: 0)
        #expect(!p.observe(client: "b", key: k(11, 203, 203), now: 1000).isEmpty, "101/101 is")
    }

    @Test func unusedPredictionsStop() {
        let p = PrefetchPredictor()
        // A viewer that zooms in and out at ever new places never asks for what was predicted.
        var last = [TileKey]()
        for i in 0..<12 {
            let x = 100 + 20 * i
            last = view(p, "a", z: 10, x: x...x + 2, y: 100...102, at: UInt64(2000 * i))
            last += view(p, "a", z: 11, x: 2 * x...2 * x + 2, y: 200...202, at: UInt64(2000 * i + 1000))
        }
        #expect(last.isEmpty, "no more predictions for this session")
        let a = p.usefulness(client: "a")!
        #expect(!a.active && a.used == 0 && a.issued >= 24)
        // A session whose predictions are used keeps getting them.
        view(p, "b", z: 10, x: 100...102, y: 100...102, at: 0)
        for step in 1...30 {
            let column = 102 + step
            last = view(p, "b", z: 10, x: column...column, y: 100...102, at: UInt64(1000 * step))
        }
        #expect(Set(last) == Set((100...102).map { k(10, 133, $0) }))
        #expect(p.usefulness(client: "b")!.active)
    }

    @Test func aSessionWithoutPredictionsGetsThemBackOnceTheyWouldBeUsed() {
        let p = PrefetchPredictor()
        for i in 0..<12 {
            let x = 100 + 20 * i
            view(p, "a", z: 10, x: x...x + 2, y: 100...102, at: UInt64(2000 * i))
            view(p, "a", z: 11, x: 2 * x...2 * x + 2, y: 200...202, at: UInt64(2000 * i + 1000))
        }
        #expect(!p.usefulness(client: "a")!.active)
        // The same viewer now pans steadily right: the predictions still worked out and scored
        // are used, and the session gets them again.
        let start: UInt64 = 100_000
        view(p, "a", z: 10, x: 500...502, y: 100...102, at: start)
        var step = 0
        var last = [TileKey]()
        while step < 60, last.isEmpty || !p.usefulness(client: "a")!.active {
            step += 1
            let column = 502 + step
            last = view(p, "a", z: 10, x: column...column, y: 100...102, at: start + UInt64(1000 * step))
        }
        #expect(p.usefulness(client: "a")!.active, "active again after \(step) steps")
        #expect(Set(last) == Set((100...102).map { k(10, 503 + step, $0) }), "the ring ahead once more")
    }

    @Test func popularPlacesSeedNewSessions() {
        let p = PrefetchPredictor()
        // Many sessions looked at the viewport right of (100...102, 100...102).
        for c in 0..<20 {
            view(p, "c\(c)", z: 10, x: 104...106, y: 100...102, at: UInt64(10 * c))
            view(p, "c\(c)", z: 10, x: 107...107, y: 100...102, at: UInt64(10 * c + 1000))
        }
        // A new session opens there: its first whole viewport is followed by the ring on that side.
        let seeds = view(p, "new", z: 10, x: 100...102, y: 100...102, at: 5000)
        #expect(Set(seeds) == Set((100...102).map { k(10, 103, $0) }))
        // Where nobody went, nothing is seeded.
        #expect(view(p, "other", z: 10, x: 300...302, y: 300...302, at: 6000).isEmpty)
    }

    @Test func aPredictorSharingTheCachesCountsSeedsFromThemAndCountsNothingItself() throws {
        let cache = TileCache(budget: 1 << 20, policy: .gdsf)
        let p = PrefetchPredictor(places: cache)
        // Requests that only the cache saw (of sessions the predictor never observed) went to
        // the viewport right of (100...102, 100...102).
        for _ in 0..<20 {
            for x in 104...107 { for y in 100...102 { _ = try cache.tile(k(10, x, y)) { sampleTile(10) } } }
        }
        // Another session, far away, shows the predictor the viewers' viewport size.
        view(p, "first", z: 10, x: 300...302, y: 300...302, at: 0)
        view(p, "first", z: 10, x: 303...303, y: 300...302, at: 1000)
        let seeds = view(p, "new", z: 10, x: 100...102, y: 100...102, at: 5000)
        #expect(Set(seeds) == Set((100...102).map { k(10, 103, $0) }))
        // What the predictor observes is not counted twice: the cache alone counts.
        #expect(cache.popularity(bundle: 1, z: 10, x: 100, y: 100) == 0)
        // A predictor of its own (or given a cache that counts nothing) knows no such place.
        for lone in [PrefetchPredictor(), PrefetchPredictor(places: TileCache(budget: 1 << 20, policy: .lru))] {
            view(lone, "first", z: 10, x: 300...302, y: 300...302, at: 0)
            view(lone, "first", z: 10, x: 303...303, y: 300...302, at: 1000)
            #expect(view(lone, "new", z: 10, x: 100...102, y: 100...102, at: 5000).isEmpty)
        }
        // The server's prefetcher shares its cache's counts.
        #expect(Prefetcher(cache: cache).predictor.places === cache)
    }

    /// Like `view`, through `predict`: whether the last request found the session repeating its
    /// viewport, and all tiles predicted meanwhile.
    func predictView(
        _ p: PrefetchPredictor, _ client: String, z: Int, x: ClosedRange<Int>, y: ClosedRange<Int>,
        at now: UInt64
    ) -> (repeats: Bool, tiles: [TileKey]) {
        var tiles: [(x: Int, y: Int)] = []
        for tx in x { for ty in y { tiles.append((tx, ty)) } }
        let cx2 = x.lowerBound + x.upperBound, cy2 = y.lowerBound + y.upperBound
        tiles.sort { (abs(2 * $0.x - cx2) + abs(2 * $0.y - cy2), $0.x, $0.y) < (abs(2 * $1.x - cx2) + abs(2 * $1.y - cy2), $1.x, $1.y) }
        var out = [TileKey]()
        for (n, t) in tiles.enumerated() {
            let prediction = p.predict(client: client, key: k(z, t.x, t.y), now: now + UInt64(n))
            out += prediction.tiles
        }
        return (p.usefulness(client: client)?.repeats ?? false, out)
    }

    @Test func aViewerWithoutACacheIsSeenToAskForItsViewportAgain() {
        let p = PrefetchPredictor(chanceLifetime: nil)
        // Without a cache: the whole 3x3 viewport again at each step, one tile right.
        for step in 0..<3 {
            _ = predictView(p, "a", z: 10, x: (100 + step)...(102 + step), y: 100...102, at: UInt64(1000 * step))
        }
        let last = predictView(p, "a", z: 10, x: 103...105, y: 100...102, at: 3000)
        #expect(last.repeats)
        let next = Set((104...106).flatMap { x in (100...102).map { k(10, x, $0) } })
        #expect(Set(last.tiles).isSubset(of: next))
        #expect(Set(last.tiles).isSuperset(of: (100...102).map { k(10, 106, $0) }), "the ring ahead")
        #expect(Set(last.tiles).isSuperset(of: (100...102).map { k(10, 104, $0) }), "and the tiles it holds and will ask for again")
        // With a cache, only the new column each step: never repeating, only the ring (a
        // predictor of its own: a new session among viewers without one starts as one of them).
        let q = PrefetchPredictor(chanceLifetime: nil)
        view(q, "b", z: 10, x: 100...102, y: 100...102, at: 0)
        for step in 1..<4 {
            let r = predictView(q, "b", z: 10, x: (102 + step)...(102 + step), y: 100...102, at: UInt64(1000 * step))
            #expect(!r.repeats)
            #expect(r.tiles.allSatisfy { $0.tile.x > 102 + step })
        }
    }

    @Test func aNewSessionStartsFromWhetherSessionsLatelyAskedForTheirViewportAgain() {
        // Nothing known yet: a new session's first viewport is tiles asked for once.
        let p = PrefetchPredictor()
        _ = p.predict(client: "first", key: k(10, 300, 300), now: 0)
        #expect(p.usefulness(client: "first")?.repeats == false)
        // Viewers without a cache: the whole 3x3 viewport again at each step.
        for c in 0..<2 {
            for step in 0..<4 {
                _ = predictView(
                    p, "a\(c)", z: 10, x: (100 + step)...(102 + step), y: (100 + 10 * c)...(102 + 10 * c), at: UInt64(1000 * step))
            }
        }
        // A new session among them is expected to ask for its first viewport again.
        _ = p.predict(client: "new", key: k(10, 200, 200), now: 5000)
        #expect(p.usefulness(client: "new")?.repeats == true)
        // Once it shows that it does not (a cache of its own: only the new column each step),
        // it is not.
        view(p, "new", z: 10, x: 199...201, y: 199...201, at: 5000)
        var last = true
        for step in 1..<4 {
            last = predictView(p, "new", z: 10, x: (201 + step)...(201 + step), y: 199...201, at: UInt64(5000 + 1000 * step)).repeats
        }
        #expect(!last)

        // Among viewers with a cache, a new session is not expected to ask again.
        let q = PrefetchPredictor()
        for c in 0..<2 {
            view(q, "b\(c)", z: 10, x: 100...102, y: (100 + 10 * c)...(102 + 10 * c), at: 0)
            for step in 1..<5 {
                _ = predictView(
                    q, "b\(c)", z: 10, x: (102 + step)...(102 + step), y: (100 + 10 * c)...(102 + 10 * c), at: UInt64(1000 * step))
            }
        }
        _ = q.predict(client: "new", key: k(10, 200, 200), now: 6000)
        #expect(q.usefulness(client: "new")?.repeats == false)
    }

    @Test func sessionCountsTellWhoGetsPredictionsAndWhoAsksAgain() {
        let p = PrefetchPredictor()
        #expect(p.sessions == PrefetchPredictor.SessionCounts())
        // A session that zooms in and out at ever new places never asks for what was predicted
        // (first, so that it starts from no habit of others: what it does shows nothing).
        for i in 0..<12 {
            let x = 300 + 20 * i
            view(p, "lost", z: 10, x: x...x + 2, y: 100...102, at: UInt64(2000 * i))
            view(p, "lost", z: 11, x: 2 * x...2 * x + 2, y: 200...202, at: UInt64(2000 * i + 1000))
        }
        // A viewer without a cache: the whole 3x3 viewport again at each step.
        for step in 0..<4 {
            _ = predictView(p, "again", z: 10, x: (100 + step)...(102 + step), y: 100...102, at: UInt64(1000 * step))
        }
        // A viewer with a cache: only the new column each step.
        view(p, "cached", z: 10, x: 100...102, y: 200...202, at: 0)
        for step in 1..<5 { view(p, "cached", z: 10, x: (102 + step)...(102 + step), y: 200...202, at: UInt64(1000 * step)) }
        #expect(p.usefulness(client: "again")!.active && !p.usefulness(client: "lost")!.active)
        #expect(p.sessions == PrefetchPredictor.SessionCounts(tracked: 3, predicted: 2, repeating: 1))
    }

    @Test func clientsAreTrackedApartAndBounded() {
        let p = PrefetchPredictor(maxClients: 16)
        for c in 0..<100 { _ = p.observe(client: "c\(c)", key: k(5, 1, 1)) }
        #expect(p.clientCount <= 16)
        _ = p.observe(client: "x", key: k(10, 5, 5))
        #expect(p.observe(client: "y", key: k(10, 6, 5)).isEmpty, "another client's history does not count")
    }

    @Test func aClientAskingForOneTileAgainAndAgainIsNotAViewportViewer() {
        let p = PrefetchPredictor()
        // A load generator: one tile, in runs with pauses between them (new bursts each time).
        for i in 0..<40 {
            for j in 0..<5 { _ = p.predict(client: "wrk", key: k(6, 33, 22), now: UInt64(i * 1000 + j)) }
        }
        #expect(p.usefulness(client: "wrk")?.repeats == false, "one tile asked for again is not a viewport drawn again")
        // Then every tile of zooms 0-6 in random order: never repeating, and no chances given.
        var tiles = (0...6).flatMap { z in (0..<(1 << z)).flatMap { x in (0..<(1 << z)).map { y in k(z, x, y) } } }
        var g = SystemRandomNumberGenerator()
        tiles.shuffle(using: &g)
        var repeating = 0, chances = 0
        for (n, t) in tiles.enumerated() {
            chances += p.predict(client: "wrk", key: t, now: 100_000 + UInt64(n / 50)).chances.count
            if p.usefulness(client: "wrk")?.repeats == true { repeating += 1 }
        }
        #expect(repeating == 0 && chances == 0)
        // A viewer without its own cache (the same viewport again, panning) still is one.
        for s in 0..<4 { view(p, "viewer", z: 10, x: (100 + s)...(103 + s), y: 100...103, at: UInt64(1000 * s)) }
        #expect(p.usefulness(client: "viewer")?.repeats == true)
    }

    @Test func atTheLimitTheOldestEighthOfClientsIsForgotten() {
        let p = PrefetchPredictor(maxClients: 1000)
        // 1,000 clients asking in a scrambled order, then the first 100 of them asking again.
        let order = (0..<1000).map { ($0 * 379) % 1000 }
        for c in order { _ = p.observe(client: "c\(c)", key: k(10, 5, 5)) }
        for c in order.prefix(100) { _ = p.observe(client: "c\(c)", key: k(10, 5, 5)) }
        #expect(p.clientCount == 1000)
        _ = p.observe(client: "new", key: k(10, 5, 5))
        // Oldest now: order[100...]; the 1000/8 + 1 = 126 longest silent go, at once.
        let gone = Set(order[100..<226])
        #expect(p.clientCount == 1000 - 126 + 1)
        for c in 0..<1000 {
            #expect((p.usefulness(client: "c\(c)") == nil) == gone.contains(c), "client \(c)")
        }
        #expect(p.usefulness(client: "new") != nil)
    }

    @Test func manyClientsKeepTheMostRecentlyActiveOnes() {
        // Against a model of the rule (at the limit, clients whose last request is not newer than
        // the n/8-th oldest's are forgotten), over random arrivals and returns.
        let p = PrefetchPredictor(maxClients: 64)
        var last = [Int: Int]()
        var g = SystemRandomNumberGenerator()
        for tick in 0..<5000 {
            let c = Bool.random(using: &g) && !last.isEmpty ? last.keys.randomElement(using: &g)! : Int.random(in: 0..<100_000, using: &g)
            if last[c] == nil, last.count >= 64 {
                let cut = last.values.sorted()[last.count / 8]
                last = last.filter { $0.value > cut }
            }
            last[c] = tick
            _ = p.observe(client: "c\(c)", key: k(10, 5, 5))
        }
        #expect(p.clientCount == last.count)
        for c in last.keys { #expect(p.usefulness(client: "c\(c)") != nil) }
    }

    @Test func prefetcherLoadsPredictionsInTheBackground() {
        let cache = TileCache(budget: 1 << 20)
        let prefetcher = Prefetcher(cache: cache)
        // A one-tile viewport panning right, a second apart.
        for x in 100..<103 {
            _ = try? cache.tile(k(10, x, 100)) { sampleTile(10) }
            prefetcher.observe(client: "a", key: k(10, x, 100), now: UInt64(1000 * x)) { _ in sampleTile(10) }
        }
        prefetcher.drain()
        #expect(cache.contains(k(10, 103, 100)))
        #expect(cache.statistics.prefetchesIssued >= 1)
    }
}

@Suite(.computeThreads) struct PrefetcherFilteringTests {
    func k(_ z: Int, _ x: Int, _ y: Int) -> TileKey { TileKey(bundle: 1, tile: TileID(z: z, x: x, y: y)!) }

    /// Zooms in from 10/100/100 to 11/200/200 (a one-tile viewport: predicts the child 12/400/400)
    /// and, from the second time on, back out first (predicts the parent 9/50/50), `times` times.
    func zoomIn(_ prefetcher: Prefetcher, times: Int, within: @escaping (TileKey) -> Bool, loads: Counter) {
        for _ in 0..<times {
            for key in [k(10, 100, 100), k(11, 200, 200)] {
                prefetcher.observe(client: "a", key: key, within: within) { _ in
                    loads.add()
                    return nil // the bundle lacks them (empty sea)
                }
            }
            prefetcher.drain()
        }
    }

    @Test func tilesFoundAbsentAreNotLookedUpAgain() {
        let prefetcher = Prefetcher(cache: TileCache(budget: 1 << 20))
        let loads = Counter()
        zoomIn(prefetcher, times: 5, within: { _ in true }, loads: loads)
        #expect(loads.value == 2, "the absent child 12/400/400 and parent 9/50/50 read once each, not once per request")
    }

    @Test func tilesOutsideTheBundlesZoomsAreNeverLoaded() {
        let prefetcher = Prefetcher(cache: TileCache(budget: 1 << 20))
        let loads = Counter()
        zoomIn(prefetcher, times: 3, within: { (10...11).contains($0.tile.z) }, loads: loads)
        #expect(loads.value == 0)
    }
}

final class Counter: Sendable {
    private let count = Mutex(0)
    func add() { count.withLock { $0 += 1 } }
    var value: Int { count.withLock { $0 } }
}
