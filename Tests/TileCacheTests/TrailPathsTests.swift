import Foundation
import Testing
import TrailMapTestSupport
import TileCache
import TileGeometry

@Suite(.computeThreads) struct TrailPathsTests {
    /// Longitude and latitude of a point given in tile units at zoom `z`.
    static func lonLat(_ x: Double, _ y: Double, z: Int) -> (lon: Double, lat: Double) {
        let n = Double(1 << z)
        return (x / n * 360 - 180, atan(sinh(.pi * (1 - 2 * y / n))) * 180 / .pi)
    }

    /// A trail along row 1500 of zoom 12 from x 1999.5 east to 2003.5, then north to y 1490.5.
    static let bend: [(lon: Double, lat: Double)] = [
        lonLat(1999.5, 1500.5, z: 12), lonLat(2003.5, 1500.5, z: 12), lonLat(2003.5, 1490.5, z: 12)
    ]

    @Test func followsTheTrailRoundItsBend() throws {
        let paths = TrailPaths(lines: [Self.bend])
        // Halfway along the east leg, moving east: one tile east.
        let straight = try #require(paths.follow(centre: SIMD2(2001.5, 1500.5), move: SIMD2(1, 0), z: 12, reach: 2))
        #expect(abs(straight.x - 1) < 1e-6 && abs(straight.y) < 1e-6)
        // At the corner, having come from the west: north, where momentum alone says east.
        let turn = try #require(paths.follow(centre: SIMD2(2003.5, 1500.5), move: SIMD2(1, 0), z: 12, reach: 2))
        #expect(abs(turn.x) < 1e-6 && abs(turn.y + 1) < 1e-6)
        // The same trail one zoom deeper: the same course, twice the tiles.
        let deeper = try #require(paths.follow(centre: SIMD2(4003.0, 3001.0), move: SIMD2(2, 0), z: 13, reach: 2))
        #expect(abs(deeper.x - 2) < 1e-6 && abs(deeper.y) < 1e-6)
    }

    @Test func followsNothingWhenNoTrailFitsTheMove() {
        let paths = TrailPaths(lines: [Self.bend])
        #expect(paths.lineCount == 1)
        #expect(paths.follow(centre: SIMD2(2001.5, 1500.5), move: SIMD2(0, 1), z: 12, reach: 2) == nil, "across the trail")
        #expect(paths.follow(centre: SIMD2(2001.5, 1510.5), move: SIMD2(1, 0), z: 12, reach: 2) == nil, "ten tiles off the trail")
        #expect(paths.follow(centre: SIMD2(250.2, 187.6), move: SIMD2(1, 0), z: 9, reach: 2) == nil, "below the zoom trails steer")
        #expect(paths.follow(centre: SIMD2(2001.5, 1500.5), move: SIMD2(0, 0), z: 12, reach: 2) == nil, "no move")
        #expect(TrailPaths(lines: [[Self.bend[0]]]).lineCount == 0, "a single point is not a line")
    }

    func k(_ x: Int, _ y: Int) -> TileKey { TileKey(bundle: 7, tile: TileID(z: 12, x: x, y: y)!) }

    /// A session of a viewer with its own cache panning east one column a second along the trail.
    func pan(_ p: PrefetchPredictor) -> [TileKey] {
        for (n, t) in [
            (2000, 1500), (1999, 1500), (2001, 1500), (2000, 1499), (2000, 1501), (1999, 1499), (2001, 1499), (1999, 1501), (2001, 1501)
        ].enumerated() {
            _ = p.observe(client: "a", key: k(t.0, t.1), now: UInt64(n))
        }
        var last = [TileKey]()
        for (step, x) in [2002, 2003, 2004].enumerated() {
            last = []
            for (n, y) in [1500, 1499, 1501].enumerated() {
                last += p.observe(client: "a", key: k(x, y), now: UInt64(1000 * (step + 1) + n))
            }
        }
        return last
    }

    @Test func aSessionAlongATrailIsPredictedRoundTheBend() {
        let plain = PrefetchPredictor()
        let ahead = Set(pan(plain))
        #expect(ahead == [k(2005, 1499), k(2005, 1500), k(2005, 1501)], "momentum alone: the column east")

        let steered = PrefetchPredictor()
        steered.setTrailPaths(TrailPaths(lines: [Self.bend]), bundle: 7)
        let along = Set(pan(steered))
        #expect(along == [k(2002, 1498), k(2003, 1498), k(2004, 1498)], "along the trail: the row north of the corner")

        let other = PrefetchPredictor()
        other.setTrailPaths(TrailPaths(lines: [Self.bend]), bundle: 8)
        #expect(Set(pan(other)) == ahead, "another bundle's trails do not steer")
        steered.setTrailPaths(nil, bundle: 7)
    }
}
