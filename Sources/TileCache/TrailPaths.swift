import Foundation
import TileGeometry

/// Lines a region's viewers are likely to follow (its trails), indexed so the predictor can ask
/// where the line under a moving viewport leads: a session panning along a trail is prefetched
/// along the trail's bends rather than straight ahead.
///
/// Points are kept in world units (Web Mercator, 0...1 from the west and the north edge) and
/// segments are bucketed in a grid of zoom-`gridZoom` tiles.
public struct TrailPaths: Sendable {
    /// The grid's zoom: a cell is one tile of this zoom.
    public static let gridZoom = 12
    /// Viewports below this zoom are not steered by trails (a trail is a hair at such zooms).
    public let minZoom: Int
    private let lines: [[SIMD2<Double>]]
    private let cells: [UInt64: [Segment]]

    struct Segment: Hashable {
        var line: Int32
        var index: Int32
    }

    /// - Parameters:
    ///   - lines: each line's points as longitude and latitude in degrees; points outside Web
    ///     Mercator's latitudes are clamped, lines of fewer than two points ignored.
    ///   - minZoom: the lowest zoom at which trails steer predictions.
    public init(lines: [[(lon: Double, lat: Double)]], minZoom: Int = 10) {
        self.minZoom = minZoom
        var kept = [[SIMD2<Double>]]()
        var cells = [UInt64: [Segment]]()
        let n = Double(1 << Self.gridZoom)
        for line in lines where line.count >= 2 {
            let points = line.map { Self.world(lon: $0.lon, lat: $0.lat) }
            let id = Int32(kept.count)
            kept.append(points)
            for i in 0..<(points.count - 1) {
                let a = points[i] * n, b = points[i + 1] * n
                // Every cell the segment's box touches (segments are short next to a cell).
                let x0 = Int(Swift.min(a.x, b.x)), x1 = Int(Swift.max(a.x, b.x))
                let y0 = Int(Swift.min(a.y, b.y)), y1 = Int(Swift.max(a.y, b.y))
                guard (x1 - x0 + 1) * (y1 - y0 + 1) <= 64 else { continue }
                for x in x0...x1 {
                    for y in y0...y1 { cells[Self.cell(x, y), default: []].append(Segment(line: id, index: Int32(i))) }
                }
            }
        }
        self.lines = kept
        self.cells = cells
    }

    /// The number of lines held.
    public var lineCount: Int { lines.count }

    /// Roughly the bytes held, for a memory budget.
    public var approximateBytes: Int {
        lines.reduce(0) { $0 + $1.count * 16 + 32 } + cells.reduce(0) { $0 + $1.value.count * 8 + 48 }
    }

    /// Where a viewport centred at `centre` (tile units at zoom `z`) goes when it follows a line
    /// for a step of `move` tiles: the step along the nearest line within `reach` tiles of the
    /// centre that the session has been travelling along (the line's last step of that length
    /// runs within 60° of the move), as a displacement in tiles; it may turn where the line
    /// bends. nil when no line qualifies or the zoom is below `minZoom`.
    public func follow(centre: SIMD2<Double>, move: SIMD2<Double>, z: Int, reach: Double) -> SIMD2<Double>? {
        let length = (move * move).sum().squareRoot()
        guard z >= minZoom, z <= TileID.maxZoom, length > 0, reach > 0 else { return nil }
        let scale = Double(1 << z)
        let c = centre / scale, r = reach / scale, step = length / scale
        let n = Double(1 << Self.gridZoom)
        let x0 = Int(((c.x - r) * n).rounded(.down)), x1 = Int(((c.x + r) * n).rounded(.down))
        let y0 = Int(((c.y - r) * n).rounded(.down)), y1 = Int(((c.y + r) * n).rounded(.down))
        guard (x1 - x0 + 1) * (y1 - y0 + 1) <= 1024 else { return nil }
        // The nearest point of each line near the centre.
        var nearest = [Int32: (distance: Double, index: Int, t: Double)]()
        for x in x0...x1 {
            for y in y0...y1 {
                guard let segments = cells[Self.cell(x, y)] else { continue }
                for s in segments {
                    let line = lines[Int(s.line)]
                    let (d, t) = Self.project(c, line[Int(s.index)], line[Int(s.index) + 1])
                    guard d <= r else { continue }
                    if let known = nearest[s.line], known.distance <= d { continue }
                    nearest[s.line] = (d, Int(s.index), t)
                }
            }
        }
        let direction = move / length
        var best: (score: Double, shift: SIMD2<Double>)?
        for (id, at) in nearest {
            let line = lines[Int(id)]
            let origin = line[at.index] + (line[at.index + 1] - line[at.index]) * at.t
            for forward in [true, false] {
                let shift = Self.walk(line, from: at.index, t: at.t, distance: step, forward: forward) - origin
                let shiftLength = (shift * shift).sum().squareRoot()
                guard shiftLength >= step / 4 else { continue }
                // The way the session came tells which way along the line it goes (the line may
                // bend right at the viewport); at a line's end, the way ahead does.
                let travelled = origin - Self.walk(line, from: at.index, t: at.t, distance: step, forward: !forward)
                let travelledLength = (travelled * travelled).sum().squareRoot()
                let cosine =
                    travelledLength >= step / 4
                    ? (travelled * direction).sum() / travelledLength
                    : (shift * direction).sum() / shiftLength
                guard cosine >= 0.5 else { continue }
                let score = cosine - 0.5 * at.distance / r
                if score > (best?.score ?? -.infinity) { best = (score, shift * scale) }
            }
        }
        return best?.shift
    }

    /// Distance from `p` to the segment a–b and the position of the nearest point (0 at a, 1 at b).
    private static func project(_ p: SIMD2<Double>, _ a: SIMD2<Double>, _ b: SIMD2<Double>) -> (Double, Double) {
        let ab = b - a
        let len2 = (ab * ab).sum()
        let t = len2 > 0 ? Swift.min(1, Swift.max(0, ((p - a) * ab).sum() / len2)) : 0
        let q = a + ab * t - p
        return ((q * q).sum().squareRoot(), t)
    }

    /// The point `distance` along the line from the point at `t` of segment `index`, forward or
    /// back; the line's end when it is shorter.
    private static func walk(_ line: [SIMD2<Double>], from index: Int, t: Double, distance: Double, forward: Bool) -> SIMD2<Double> {
        var here = line[index] + (line[index + 1] - line[index]) * t
        var left = distance
        var next = forward ? index + 1 : index
        while next >= 0 && next < line.count {
            let d = line[next] - here
            let len = (d * d).sum().squareRoot()
            if len >= left, len > 0 { return here + d * (left / len) }
            left -= len
            here = line[next]
            next += forward ? 1 : -1
        }
        return here
    }

    static func world(lon: Double, lat: Double) -> SIMD2<Double> {
        let clamped = Swift.max(-85.051_128_78, Swift.min(85.051_128_78, lat))
        let x = (lon + 180) / 360
        let s = sin(clamped * .pi / 180)
        let y = 0.5 - log((1 + s) / (1 - s)) / (4 * .pi)
        return SIMD2(Swift.max(0, Swift.min(1, x)), Swift.max(0, Swift.min(1, y)))
    }

    private static func cell(_ x: Int, _ y: Int) -> UInt64 {
        UInt64(UInt32(truncatingIfNeeded: x)) << 32 | UInt64(UInt32(truncatingIfNeeded: y))
    }
}
