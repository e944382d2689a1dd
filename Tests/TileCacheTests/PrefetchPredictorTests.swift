import Testing
import TileCache
import TileGeometry

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
