import Foundation
import Terrain
import Testing
import TrailMapTestSupport

/// Marching squares on grids whose contours are known exactly: a cone's are circles, a plane's
/// straight lines; saddles, voids and bad levels.
@Suite(.computeThreads) struct ContourTests {
    /// A cone `top` metres high at pixel (`cx`, `cy`) of the tile, falling `slope` metres a pixel.
    static func cone(size: Int = 64, border: Int = 1, cx: Double, cy: Double, top: Double, slope: Double) -> ElevationGrid {
        var g = ElevationGrid(size: size, border: border)
        for r in 0..<g.stride {
            for c in 0..<g.stride {
                let x = Double(c - border) + 0.5, y = Double(r - border) + 0.5
                g.values[r * g.stride + c] = Float(top - slope * ((x - cx) * (x - cx) + (y - cy) * (y - cy)).squareRoot())
            }
        }
        return g
    }

    /// Each level of a cone is one closed circle of radius (top − level) / slope around its apex:
    /// every point within a tenth of a pixel of it; one line per level, every level there.
    @Test func aConesContoursAreCirclesOfTheirRadius() throws {
        let (cx, cy, top, slope) = (31.3, 30.8, 1000.0, 20.0)
        let grid = Self.cone(cx: cx, cy: cy, top: top, slope: slope)
        let lines = try Contours.trace(grid, levels: ContourLevels(interval: 50, indexEvery: 4))
        // Circles wholly inside the grid: radius up to 30 px (the grid reaches 31.3 px west).
        let inside = lines.filter { (top - $0.level) / slope <= 30 }
        #expect(inside.map(\.level) == stride(from: 400.0, through: 950, by: 50).map { $0 }, "\(inside.map(\.level))")
        for line in inside {
            let radius = (top - line.level) / slope
            #expect(line.isClosed && line.points.first == line.points.last, "level \(line.level)")
            #expect(line.points.count > Int(radius * 4), "level \(line.level): \(line.points.count) points")
            for p in line.points {
                let r = ((p.x - cx) * (p.x - cx) + (p.y - cy) * (p.y - cy)).squareRoot()
                #expect(abs(r - radius) < 0.1, "level \(line.level): point \(p) at \(r) px, circle \(radius)")
            }
            #expect(line.isIndex == (Int(line.level) % 200 == 0), "level \(line.level)")
        }
        // Levels only where the grid reaches: the lowest corner is 1000 - 20 × hypot(32.8, 33.3).
        let lowest = Double(grid.values.min()!)
        #expect(lines.map(\.level).min()! == (lowest / 50).rounded(.up) * 50)
        #expect(Set(lines.map(\.level)).count == Int(950 / 50) - Int((lowest / 50).rounded(.up)) + 1)
    }

    /// A plane rising 3 m a pixel eastwards: level h is the vertical line where x = h / 3 (from the
    /// grid's first pixel centre), spanning the grid's height border included.
    @Test func aPlanesContoursAreStraightLines() throws {
        var g = ElevationGrid(size: 16, border: 2)
        for r in 0..<g.stride { for c in 0..<g.stride { g.values[r * g.stride + c] = Float(3 * c) } }
        let lines = try Contours.trace(g, levels: ContourLevels(interval: 10, indexEvery: 0))
        // Level 0 is the western column itself: nothing lies below it.
        #expect(lines.map(\.level) == stride(from: 10.0, through: 50, by: 10).map { $0 })
        for line in lines {
            #expect(!line.isIndex && !line.isClosed)
            for p in line.points { #expect(abs(p.x - (line.level / 3 - 2 + 0.5)) < 1e-9, "level \(line.level): \(p)") }
            let ys = line.points.map(\.y)
            #expect(ys.min()! == -1.5 && ys.max()! == 17.5, "level \(line.level): \(ys.min()!)...\(ys.max()!)")
        }
    }

    /// A saddle cell (north-west and south-east corners high): the mean of its corners decides
    /// which pair is joined, the two pieces never cross.
    @Test(arguments: [(Float(60), true), (Float(40), false)])
    func saddlesFollowTheMeanOfTheCell(_ high: Float, _ joined: Bool) throws {
        // Corners 10 and `high` on the diagonal of one cell; level 30 between them.
        let g = ElevationGrid(size: 2, border: 0, values: [high, 10, 10, high])
        let lines = try Contours.trace(g, levels: ContourLevels(interval: 30, indexEvery: 0))
        let level30 = lines.filter { $0.level == 30 }
        #expect(level30.count == 2)
        // Pixel centres at 0.5 and 1.5: the cell's middle is (1, 1).
        for line in level30 {
            let mid = (line.points[0] + line.points[line.points.count - 1]) / 2
            // Joined high corners leave the low ones (north-east, south-west) cut off.
            let cutOffLow = (mid.x > 1) != (mid.y > 1)
            #expect(cutOffLow == joined, "mean \((2 * Double(high) + 20) / 4): piece around \(mid)")
        }
    }

    /// Two neighbouring tiles cut from one grid, each with its border: where they meet, each
    /// one's lines lie on the other's (shifted by the tile's width), so lines cross the edge whole.
    @Test func neighbouringTilesTraceTheSameLinesAcrossTheirEdge() throws {
        let size = 32, border = 2
        let whole = Self.cone(size: 2 * size, border: border, cx: 33.7, cy: 20.2, top: 700, slope: 13)
        func cut(_ column: Int) -> ElevationGrid {
            var g = ElevationGrid(size: size, border: border)
            for r in 0..<g.stride { for c in 0..<g.stride { g.values[r * g.stride + c] = whole.values[r * whole.stride + column + c] } }
            return g
        }
        let west = try Contours.trace(cut(0), levels: ContourLevels(interval: 25))
        let east = try Contours.trace(cut(size), levels: ContourLevels(interval: 25)).map { line in
            var l = line
            l.points = line.points.map { $0 + SIMD2(Double(size), 0) }
            return l
        }
        // The strip both grids hold around the edge at x = 32: pixel centres 30.5...33.5.
        var compared = 0
        for (mine, theirs) in [(west, east), (east, west)] {
            for line in mine {
                let other = theirs.filter { $0.level == line.level }.map(\.points)
                for p in line.points where p.x >= 30.5 && p.x <= 33.5 {
                    let d =
                        other.flatMap { zip($0, $0.dropFirst()) }.map { a, b -> Double in
                            let v = b - a, t = max(0, min(1, ((p - a) * v).sum() / max((v * v).sum(), 1e-12)))
                            let e = p - (a + t * v)
                            return (e * e).sum().squareRoot()
                        }.min() ?? .infinity
                    #expect(d < 1e-9, "level \(line.level): \(p) is \(d) px from the neighbour's line")
                    compared += 1
                }
            }
        }
        #expect(compared > 40, "\(compared) points compared")
    }

    /// No line enters a cell with a void corner, and lines stop at the void's edge.
    @Test func voidsAreSkipped() throws {
        var g = Self.cone(size: 32, cx: 16, cy: 16, top: 500, slope: 10)
        for r in 10...14 { for c in 10...14 { g.values[(r + 1) * g.stride + c + 1] = .nan } }
        let lines = try Contours.trace(g, levels: ContourLevels(interval: 20))
        #expect(!lines.isEmpty)
        // Void pixel centres 10.5...14.5: cells touching them span 9.5...15.5.
        for line in lines {
            for p in line.points {
                let inside = p.x > 9.5 + 1e-9 && p.x < 15.5 - 1e-9 && p.y > 9.5 + 1e-9 && p.y < 15.5 - 1e-9
                #expect(!inside, "level \(line.level): point \(p) in a cell with a void")
            }
        }
        // The circle at radius 8 (level 420) passes through the void's corner region: it is cut open.
        #expect(lines.filter { $0.level == 420 }.allSatisfy { !$0.isClosed })
        // The circle at radius 10 (level 400) misses the void's cells: still closed.
        #expect(lines.filter { $0.level == 400 }.count == 1 && lines.filter { $0.level == 400 }.allSatisfy(\.isClosed))
    }

    @Test func badLevelsAndAllVoidGrids() throws {
        let g = Self.cone(size: 8, cx: 4, cy: 4, top: 100, slope: 1)
        for bad in [0.0, -5, .nan, .infinity] {
            do { _ = try Contours.trace(g, levels: ContourLevels(interval: bad)); Issue.record("interval \(bad) accepted") } catch {
                guard case let .interval(v) = error else { Issue.record("\(error)"); continue }
                #expect(v == bad || (v.isNaN && bad.isNaN))
            }
        }
        #expect(throws: ContourError.indexEvery(-1)) { try Contours.trace(g, levels: ContourLevels(interval: 1, indexEvery: -1)) }
        // 100 m of relief at 1 cm: 10,000 levels in a tile.
        let steep = Self.cone(size: 8, cx: 4, cy: 4, top: 100, slope: 10)
        #expect(throws: ContourError.self) { try Contours.trace(steep, levels: ContourLevels(interval: 0.01)) }
        do { _ = try Contours.trace(steep, levels: ContourLevels(interval: 0.01)) } catch {
            guard case let .tooManyLevels(count, limit, _) = error else { Issue.record("\(error)"); return }
            #expect(count > limit && limit == ContourLevels.maxLevelsPerTile)
        }
        // An interval so fine that the level numbers overflow is refused too, not drawn as nothing.
        #expect(throws: ContourError.self) { try Contours.trace(steep, levels: ContourLevels(interval: 1e-20)) }
        #expect(try Contours.trace(ElevationGrid(size: 8, border: 1), levels: ContourLevels(interval: 10)).isEmpty)
        #expect(try Contours.trace(g, levels: ContourLevels(interval: 1000)).isEmpty)
    }
}
