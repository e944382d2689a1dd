import Testing
import TrailMapTestSupport
@testable import TileCache
import TileGeometry

/// The box geometry the release queue records viewports left behind with.
@Suite(.computeThreads) struct TileBoxTests {
    func tiles(_ b: TileBox) -> Set<[Int]> {
        var out = Set<[Int]>()
        for x in b.x0...b.x1 { for y in b.y0...b.y1 { out.insert([x, y]) } }
        return out
    }

    @Test func theIntersectionHoldsTheTilesOfBoth() {
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<500 {
            let a = random(&rng), b = random(&rng)
            let both = tiles(a).intersection(tiles(b))
            if let i = a.intersection(b) {
                #expect(tiles(i) == both, "\(a) ∩ \(b) = \(i)")
            } else {
                #expect(both.isEmpty, "\(a) and \(b) share \(both.count) tiles")
            }
        }
    }

    @Test func subtractingGivesAtMostFourDisjointBoxesOfTheRest() {
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<500 {
            let a = random(&rng), b = random(&rng)
            let parts = a.subtracting(b)
            #expect(parts.count <= 4 && parts.allSatisfy { $0.width > 0 && $0.height > 0 })
            let counted = parts.reduce(0) { $0 + $1.width * $1.height }
            let union = parts.reduce(into: Set<[Int]>()) { $0.formUnion(tiles($1)) }
            #expect(counted == union.count, "\(a) - \(b): parts overlap \(parts)")
            #expect(union == tiles(a).subtracting(tiles(b)), "\(a) - \(b) = \(parts)")
        }
        let box = TileBox(x0: 2, y0: 2, x1: 5, y1: 5)
        #expect(box.subtracting(box).isEmpty)
        #expect(box.subtracting(TileBox(x0: 9, y0: 9, x1: 9, y1: 9)) == [box])
        #expect(box.subtracting(TileBox(x0: 3, y0: 3, x1: 4, y1: 4)).count == 4)
    }

    @Test func tilesComeNearestTheCentreFirstTiesInColumnThenRowOrder() {
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<300 {
            let a = random(&rng), b = random(&rng)
            let other: TileBox? = Bool.random(using: &rng) ? b : nil
            // Reference: the distance of each tile's centre from the box's, a stable sort.
            var expected: [(Double, [Int])] = []
            for x in a.x0...a.x1 {
                for y in a.y0...a.y1 where other?.contains(x, y) != true {
                    let dx = Double(x) + 0.5 - a.cx, dy = Double(y) + 0.5 - a.cy
                    expected.append((dx * dx + dy * dy, [x, y]))
                }
            }
            var sorted: [(Double, [Int])] = []
            for e in expected {
                let at = sorted.firstIndex { $0.0 > e.0 } ?? sorted.count
                sorted.insert(e, at: at)
            }
            let got = a.tiles(notIn: other, z: 5).map { [$0.x, $0.y] }
            #expect(got == sorted.map(\.1), "\(a) not in \(String(describing: other))")
        }
        // Tiles beyond the zoom's edge are left out.
        #expect(TileBox(x0: 2, y0: 2, x1: 4, y1: 4).tiles(notIn: nil, z: 2).map { [$0.x, $0.y] } == [[3, 3], [2, 3], [3, 2], [2, 2]])
    }

    func random(_ rng: inout SystemRandomNumberGenerator) -> TileBox {
        let x0 = Int.random(in: 0...8, using: &rng), y0 = Int.random(in: 0...8, using: &rng)
        return TileBox(x0: x0, y0: y0, x1: x0 + Int.random(in: 0...5, using: &rng), y1: y0 + Int.random(in: 0...5, using: &rng))
    }
}
