import Testing
import TrailMapTestSupport
import TileCache
import TileGeometry

/// Sessions that are not one viewer (a load generator or a crawler behind one address asking for
/// tiles all over the map) get no predictions worked out; viewers that jump often still do.
@Suite(.computeThreads) struct ScatteredSessionTests {
    func k(_ z: Int, _ x: Int, _ y: Int) -> TileKey { TileKey(bundle: 1, tile: TileID(z: z, x: x, y: y)!) }

    /// Every tile of zooms 0 to 6 once, in an order shuffled by a fixed generator.
    func shuffledWorld() -> [TileKey] {
        var all: [TileKey] = []
        for z in 0...6 { for x in 0..<(1 << z) { for y in 0..<(1 << z) { all.append(k(z, x, y)) } } }
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        for i in stride(from: all.count - 1, to: 0, by: -1) {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            all.swapAt(i, Int((state >> 33) % UInt64(i + 1)))
        }
        return all
    }

    @Test func aClientAskingForTilesAllOverTheMapGetsNoPredictions() {
        let p = PrefetchPredictor()
        let world = shuffledWorld()
        var late = 0
        for (i, key) in world.enumerated() {
            // Requests microseconds apart, as a load generator's: one burst that never ends.
            let prediction = p.predict(client: "load", key: key, now: UInt64(i / 64))
            if i >= 1000 { late += prediction.tiles.count + prediction.zoomTiles.count }
        }
        let load = p.usefulness(client: "load")!
        #expect(load.scattered)
        #expect(late < 20, "\(late) tiles predicted over the last \(world.count - 1000) requests")
    }

    @Test func aViewerThatJumpsAtEveryStepIsNotScatteredAndGetsTheRingOnceItPans() {
        let p = PrefetchPredictor()
        var now: UInt64 = 0
        // A small viewport (2 by 3 tiles), drawn at a new place at every step.
        for step in 0..<40 {
            let x = 100 + 50 * step
            for dx in 0...1 { for dy in 0...2 { _ = p.predict(client: "phone", key: k(12, x + dx, 500 + dy), now: now); now += 1 } }
            now += 1000
            #expect(p.usefulness(client: "phone")?.scattered == false, "step \(step)")
        }
        // Then it pans right a column at a time: the column ahead is predicted.
        var last: [TileKey] = []
        for step in 1...6 {
            let column = 2101 + step
            last = []
            for dy in 0...2 { last += p.predict(client: "phone", key: k(12, column, 500 + dy), now: now).tiles; now += 1 }
            now += 1000
        }
        #expect(Set(last).isSuperset(of: (500...502).map { k(12, 2108, $0) }), "\(last)")
    }
}
