/// Anti-aliased strokes with round joins and caps, drawn as distance fields: each pixel keeps
/// its squared distance from its centre to the nearest segment (one field under all lines for
/// the casing, one per difficulty for the lines), and its coverage is the stroke's half-width
/// plus half a pixel less that distance, clamped to 0...1 — exact for straight edges, round at
/// joins and ends. A pixel's value depends only on where it lies in the world, so tiles drawn
/// apart match where they meet.
struct StrokeRasterizer {
    let width: Int
    let height: Int
    /// Half the full stroke (line and casing), and half the line.
    let outerHalf: Double
    let lineHalf: Double
    /// Squared distance to the nearest segment of any line, and per difficulty drawn.
    private(set) var nearest: [Float]
    private(set) var groups: [(key: TrailDifficultyStyleKey, nearest: [Float])] = []
    private let reach: Double

    init(width: Int, height: Int, outerHalf: Double, lineHalf: Double) {
        self.width = width
        self.height = height
        self.outerHalf = outerHalf
        self.lineHalf = lineHalf
        reach = outerHalf + 0.5
        nearest = [Float](repeating: .infinity, count: width * height)
    }

    /// Starts the lines of a difficulty (drawn over those started before).
    mutating func begin(_ key: TrailDifficultyStyleKey) {
        groups.append((key, [Float](repeating: .infinity, count: width * height)))
    }

    /// Adds a segment to the current difficulty's lines and to the casing.
    mutating func add(_ a: SIMD2<Double>, _ b: SIMD2<Double>) {
        let r = reach, r2 = r * r
        let d = b - a
        let len2 = (d * d).sum()
        let row0 = max(0, Int((min(a.y, b.y) - r - 0.5).rounded(.up)))
        let row1 = min(height - 1, Int((max(a.y, b.y) + r - 0.5).rounded(.down)))
        guard row0 <= row1 else { return }
        let boxX0 = min(a.x, b.x) - r, boxX1 = max(a.x, b.x) + r
        let steep = abs(d.y) > 1e-9
        let bandHalf = steep ? r * len2.squareRoot() / abs(d.y) : 0
        let g = groups.count - 1
        nearest.withUnsafeMutableBufferPointer { all in
            groups[g].nearest.withUnsafeMutableBufferPointer { mine in
                for row in row0...row1 {
                    let cy = Double(row) + 0.5
                    var lo = boxX0, hi = boxX1
                    if steep {
                        // The band within `r` of the segment's line crosses this row here.
                        let xc = a.x + (cy - a.y) / d.y * d.x
                        lo = max(lo, xc - bandHalf)
                        hi = min(hi, xc + bandHalf)
                    }
                    let c0 = max(0, Int((lo - 0.5).rounded(.up)))
                    let c1 = min(width - 1, Int((hi - 0.5).rounded(.down)))
                    guard c0 <= c1 else { continue }
                    let vy = cy - a.y
                    for col in c0...c1 {
                        let vx = Double(col) + 0.5 - a.x
                        var t = len2 > 0 ? (vx * d.x + vy * d.y) / len2 : 0
                        t = min(max(t, 0), 1)
                        let ex = vx - t * d.x, ey = vy - t * d.y
                        let dist2 = ex * ex + ey * ey
                        guard dist2 < r2 else { continue }
                        let f = Float(dist2)
                        let i = row * width + col
                        if f < all[i] { all[i] = f }
                        if f < mine[i] { mine[i] = f }
                    }
                }
            }
        }
    }

    /// The strokes as straight-alpha RGBA: the casing under all lines, then each difficulty's
    /// lines in the order begun.
    func image(casing: TrailColor?, colors: (TrailDifficultyStyleKey) -> TrailColor) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: width * height * 4)
        let palette = groups.map { g -> SIMD4<Double> in
            let c = colors(g.key).components
            return SIMD4(c.r, c.g, c.b, c.a)
        }
        let under = casing.map { c -> SIMD4<Double> in
            let k = c.components
            return SIMD4(k.r, k.g, k.b, k.a)
        }
        let reach2 = Float(reach * reach)
        out.withUnsafeMutableBufferPointer { o in
            for i in 0..<(width * height) where nearest[i] < reach2 {
                // Premultiplied colour and alpha, source over, from the bottom up.
                var acc = SIMD4<Double>(0, 0, 0, 0)
                if let c = under {
                    let cov = min(max(reach - Double(nearest[i]).squareRoot(), 0), 1) * c.w
                    acc = SIMD4(c.x * cov, c.y * cov, c.z * cov, cov)
                }
                for (g, group) in groups.enumerated() where group.nearest[i] < reach2 {
                    let c = palette[g]
                    let cov = min(max(lineHalf + 0.5 - Double(group.nearest[i]).squareRoot(), 0), 1) * c.w
                    guard cov > 0 else { continue }
                    acc = SIMD4(c.x * cov, c.y * cov, c.z * cov, cov) + acc * (1 - cov)
                }
                let a = acc.w
                guard a > 0 else { continue }
                let alpha = (a * 255).rounded()
                guard alpha >= 1 else { continue }
                o[i * 4] = UInt8(min(255, (acc.x / a * 255).rounded()))
                o[i * 4 + 1] = UInt8(min(255, (acc.y / a * 255).rounded()))
                o[i * 4 + 2] = UInt8(min(255, (acc.z / a * 255).rounded()))
                o[i * 4 + 3] = UInt8(alpha)
            }
        }
        return out
    }
}
