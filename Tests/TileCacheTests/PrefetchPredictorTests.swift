import Testing
import TileCache
import TileGeometry
import Synchronization

@Suite struct PrefetchPredictorTests {
    func k(_ z: Int, _ x: Int, _ y: Int) -> TileKey { TileKey(bundle: 1, tile: TileID(z: z, x: x, y: y)!) }

    @Test func panningPredictsTheNextTileAhead() {
        let p = PrefetchPredictor()
        #expect(p.observe(client: "a", key: k(10, 100, 100)).isEmpty, "nothing to go on yet")
        _ = p.observe(client: "a", key: k(10, 101, 100))
        let next = p.observe(client: "a", key: k(10, 102, 100))
        #expect(next == [k(10, 103, 100)])
    }

    @Test func zoomingInPredictsChildrenAndOutTheParent() {
        let p = PrefetchPredictor()
        _ = p.observe(client: "a", key: k(10, 100, 100))
        #expect(Set(p.observe(client: "a", key: k(11, 200, 200))) == Set(TileID(z: 11, x: 200, y: 200)!.children.map { TileKey(bundle: 1, tile: $0) }))
        #expect(p.observe(client: "a", key: k(10, 100, 100)) == [k(9, 50, 50)])
    }

    @Test func clientsAreTrackedApartAndBounded() {
        let p = PrefetchPredictor(maxClients: 16)
        for c in 0..<100 { _ = p.observe(client: "c\(c)", key: k(5, 1, 1)) }
        #expect(p.clientCount <= 16)
        _ = p.observe(client: "x", key: k(10, 5, 5))
        #expect(p.observe(client: "y", key: k(10, 6, 5)).isEmpty, "another client's history does not count")
    }

    @Test func prefetcherLoadsPredictionsInTheBackground() {
        let cache = TileCache(budget: 1 << 20)
        let prefetcher = Prefetcher(cache: cache)
        for x in 100..<103 {
            _ = try? cache.tile(k(10, x, 100)) { sampleTile(10) }
            prefetcher.observe(client: "a", key: k(10, x, 100)) { _ in sampleTile(10) }
        }
        prefetcher.drain()
        #expect(cache.contains(k(10, 103, 100)))
        #expect(cache.statistics.prefetchesIssued >= 1)
    }
}

@Suite struct PrefetcherFilteringTests {
    func k(_ z: Int, _ x: Int, _ y: Int) -> TileKey { TileKey(bundle: 1, tile: TileID(z: z, x: x, y: y)!) }

    /// Zooms in from 10/100/100 to 11/200/200 (predicts the four children at zoom 12) and, from the
    /// second time on, back out first (predicts the parent 9/50/50), `times` times.
    func zoomIn(_ prefetcher: Prefetcher, times: Int, within: @escaping (TileKey) -> Bool, loads: Counter) {
        for _ in 0..<times {
            for key in [k(10, 100, 100), k(11, 200, 200)] {
                prefetcher.observe(client: "a", key: key, within: within) { _ in
                    loads.add()
                    return nil  // the bundle lacks them (empty sea)
                }
            }
            prefetcher.drain()
        }
    }

    @Test func tilesFoundAbsentAreNotLookedUpAgain() {
        let prefetcher = Prefetcher(cache: TileCache(budget: 1 << 20))
        let loads = Counter()
        zoomIn(prefetcher, times: 5, within: { _ in true }, loads: loads)
        #expect(loads.value == 5, "the four absent children and the parent read once each, not once per request")
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
