/// One contour line of a tile: its level and its points in the tile's pixels.
public struct ContourLine: Sendable, Equatable {
    /// The elevation in metres.
    public var level: Double
    /// Whether the level is an index contour (drawn heavier).
    public var isIndex: Bool
    /// The line's points in tile pixels: x east, y south from the tile's north-west corner,
    /// pixel (x, y)'s centre at (x + 0.5, y + 0.5). Points beyond the tile come from its border.
    public var points: [SIMD2<Double>]
    /// Whether the line closes on itself (its last point is its first).
    public var isClosed: Bool

    public init(level: Double, isIndex: Bool, points: [SIMD2<Double>], isClosed: Bool) {
        self.level = level
        self.isIndex = isIndex
        self.points = points
        self.isClosed = isClosed
    }
}

/// Contour lines by marching squares on an `ElevationGrid`: the cells are the squares between
/// four neighbouring pixel centres (the border's included, so lines reach past the tile's edges
/// and meet the neighbouring tile's), a level crosses a cell's side where it lies between the
/// side's two elevations (linearly placed), and the pieces are joined into lines per level.
///
/// A pixel at or above a level counts as above it. A cell with a void corner draws nothing. A
/// saddle (two opposite corners above, two below) is resolved by the mean of its four corners:
/// when the mean is above, the corners above are joined through the middle. The choice depends
/// only on the cell's elevations, so neighbouring tiles resolve a shared cell alike.
public enum Contours {
    /// The lines of every level of `levels` that the grid's elevations cross, lowest level
    /// first; none for a grid of voids. More levels in the grid than
    /// `ContourLevels.maxLevelsPerTile` is an error.
    public static func trace(_ grid: ElevationGrid, levels: ContourLevels) throws(ContourError) -> [ContourLine] {
        if let problem = levels.problem { throw problem }
        var low = Double.infinity, high = -Double.infinity
        for v in grid.values where !v.isNaN {
            low = min(low, Double(v))
            high = max(high, Double(v))
        }
        guard low <= high else { return [] }
        let count = levels.count(from: low, to: high)
        guard count <= Double(ContourLevels.maxLevelsPerTile) else {
            throw .tooManyLevels(
                count: count < 1e18 ? Int(count) : Int(1e18), limit: ContourLevels.maxLevelsPerTile, interval: levels.interval)
        }
        guard let steps = levels.steps(from: low, to: high) else { return [] }
        let tracer = Tracer(grid: grid)
        var pieces = [[Int]](repeating: [], count: steps.count)
        tracer.cut(levels: levels, steps: steps, into: &pieces)
        var out = [ContourLine]()
        for (offset, edges) in pieces.enumerated() where !edges.isEmpty {
            let k = steps.lowerBound + offset, level = levels.elevation(k)
            for (chain, closed) in Self.join(edges) {
                var points = [SIMD2<Double>]()
                points.reserveCapacity(chain.count)
                for e in chain {
                    let p = tracer.point(edge: e, level: level)
                    if points.last != p { points.append(p) }
                }
                guard points.count >= 2 else { continue }
                out.append(ContourLine(level: level, isIndex: levels.isIndex(k), points: points, isClosed: closed))
            }
        }
        return out
    }

    /// Joins pieces (pairs of cell-side keys, flat) into chains of side keys; closed chains end
    /// on their first key.
    static func join(_ pieces: [Int]) -> [(edges: [Int], closed: Bool)] {
        let n = pieces.count / 2
        // The (at most two) pieces touching each side.
        var touching = [Int: (Int, Int)](minimumCapacity: n * 2)
        for p in 0..<n {
            for e in [pieces[2 * p], pieces[2 * p + 1]] {
                if let t = touching[e] { touching[e] = (t.0, p) } else { touching[e] = (p, -1) }
            }
        }
        var used = [Bool](repeating: false, count: n)
        var chains = [(edges: [Int], closed: Bool)]()
        /// Follows pieces from `piece` across `edge` while unused ones continue, appending sides.
        func follow(from piece: Int, across edge: Int, into chain: inout [Int]) -> Int {
            var current = piece, side = edge
            while let t = touching[side] {
                let next = t.0 == current ? t.1 : t.0
                guard next >= 0, !used[next] else { break }
                used[next] = true
                side = pieces[2 * next] == side ? pieces[2 * next + 1] : pieces[2 * next]
                chain.append(side)
                current = next
            }
            return side
        }
        for p in 0..<n where !used[p] {
            used[p] = true
            var forward = [pieces[2 * p], pieces[2 * p + 1]]
            let end = follow(from: p, across: forward[1], into: &forward)
            if end == forward[0], forward.count > 2 {
                chains.append((forward, true))
                continue
            }
            var backward = [Int]()
            _ = follow(from: p, across: forward[0], into: &backward)
            chains.append((backward.reversed() + forward, false))
        }
        return chains
    }
}

/// The cells of one grid: which sides each level crosses, and where.
private struct Tracer {
    let grid: ElevationGrid
    let stride: Int
    let offset: Double

    init(grid: ElevationGrid) {
        self.grid = grid
        stride = grid.stride
        offset = 0.5 - Double(grid.border)
    }

    // A side's key: 2 × (the index of its north or west corner), +1 for a north–south side.
    @inline(__always) func across(_ i: Int, _ j: Int) -> Int { (j * stride + i) * 2 }
    @inline(__always) func down(_ i: Int, _ j: Int) -> Int { (j * stride + i) * 2 + 1 }

    /// Where `level` crosses side `edge`, in tile pixels.
    func point(edge: Int, level: Double) -> SIMD2<Double> {
        let corner = edge / 2, i = corner % stride, j = corner / stride
        let other = edge % 2 == 0 ? corner + 1 : corner + stride
        let a = Double(grid.values[corner]), b = Double(grid.values[other])
        let t = b == a ? 0 : min(1, max(0, (level - a) / (b - a)))
        let x = Double(i) + offset, y = Double(j) + offset
        return edge % 2 == 0 ? SIMD2(x + t, y) : SIMD2(x, y + t)
    }

    /// Adds each level's pieces (pairs of side keys) to `pieces[k - steps.lowerBound]`.
    func cut(levels: ContourLevels, steps: ClosedRange<Int>, into pieces: inout [[Int]]) {
        let s = stride
        grid.values.withUnsafeBufferPointer { v in
            for j in 0..<(s - 1) {
                for i in 0..<(s - 1) {
                    let a = Double(v[j * s + i]), b = Double(v[j * s + i + 1])
                    let c = Double(v[(j + 1) * s + i + 1]), d = Double(v[(j + 1) * s + i])
                    if a.isNaN || b.isNaN || c.isNaN || d.isNaN { continue }
                    let low = min(min(a, b), min(c, d)), high = max(max(a, b), max(c, d))
                    guard low < high, let ks = levels.steps(from: low, to: high) else { continue }
                    let top = across(i, j), bottom = across(i, j + 1), left = down(i, j), right = down(i + 1, j)
                    for k in ks {
                        let level = levels.elevation(k)
                        // Every corner at or above the level: nothing crosses.
                        if low >= level { continue }
                        let ua = a >= level, ub = b >= level, uc = c >= level, ud = d >= level
                        let slot = k - steps.lowerBound
                        if ua == uc, ub == ud, ua != ub {
                            // A saddle: the mean decides whether the corners above join.
                            let middleAbove = (a + b + c + d) / 4 >= level
                            // Joined through the middle, a and c leave b and d cut off; else the reverse.
                            pieces[slot] += middleAbove == ua ? [top, right, bottom, left] : [left, top, right, bottom]
                        } else {
                            if ua != ub { pieces[slot].append(top) }
                            if ub != uc { pieces[slot].append(right) }
                            if ud != uc { pieces[slot].append(bottom) }
                            if ua != ud { pieces[slot].append(left) }
                        }
                    }
                }
            }
        }
    }
}
