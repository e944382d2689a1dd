import Foundation
import CCairo

/// A box in world pixels at one zoom (x to the east, y to the south).
public struct PixelBox: Sendable, Equatable {
    /// The west, north, east and south edges, in world pixels.
    public var minX: Double, minY: Double, maxX: Double, maxY: Double

    /// A box from its edges.
    public init(minX: Double, minY: Double, maxX: Double, maxY: Double) {
        self.minX = minX; self.minY = minY; self.maxX = maxX; self.maxY = maxY
    }

    /// True when the boxes share interior area (touching edges do not overlap).
    public func overlaps(_ o: PixelBox) -> Bool {
        minX < o.maxX && o.minX < maxX && minY < o.maxY && o.minY < maxY
    }

    func expanded(by d: Double) -> PixelBox { PixelBox(minX: minX - d, minY: minY - d, maxX: maxX + d, maxY: maxY + d) }
}

/// A trail name placed at one zoom: where its text is centred, its angle, and the box its
/// text and halo fit in, all in world pixels of that zoom; the tile it lies wholly inside.
public struct PlacedLabel: Sendable, Equatable {
    /// The id of the line it names.
    public var lineID: String
    /// The name drawn.
    public var text: String
    /// Where the text is centred, in world pixels.
    public var centerX: Double
    public var centerY: Double
    /// Radians, clockwise from east (so the text never reads upside down: within ±90°).
    public var angle: Double
    /// The axis-aligned box around the turned text and its halo.
    public var box: PixelBox
    /// The column and row of the tile that holds the box and draws the label.
    public var tileX: Int
    public var tileY: Int
}

/// Places the trail names of one zoom over all the trails at once, so every tile that asks
/// sees the same labels: along straight enough stretches of each line, longest lines first,
/// never two within `labelPadding` of each other, and never one across a tile edge.
struct LabelPlacement {
    let trails: ProjectedTrails
    let style: TrailStyle
    let zoom: Int
    let tileSize: Int

    /// Candidate centres along a line are this many pixels apart.
    static let step = 8.0

    func place() -> [PlacedLabel] {
        guard let scratch = CairoCanvas(width: 1, height: 1) else { return [] }
        let fontSize = style.fontSize.value(at: Double(zoom))
        guard fontSize > 0 else { return [] }
        let scale = Double(1 << zoom) * Double(tileSize)
        let tile = Double(tileSize)
        let pad = max(style.labelPadding, 0)
        let halo = max(style.haloWidth, 0)

        // Each named line's parts, longest lines first, then by id.
        var partsByLine = [Int: [ProjectedTrails.Part]]()
        var length = [Int: Double]()
        for p in trails.parts {
            guard let name = trails.lines[p.line].name, !name.isEmpty else { continue }
            partsByLine[p.line, default: []].append(p)
            var l = 0.0
            for i in p.start..<(p.start + p.count - 1) {
                l += hypot(trails.xy[2 * i + 2] - trails.xy[2 * i], trails.xy[2 * i + 3] - trails.xy[2 * i + 1])
            }
            length[p.line, default: 0] += l
        }
        let order = partsByLine.keys.sorted {
            let a = length[$0]!, b = length[$1]!
            return a != b ? a > b : trails.lines[$0].id < trails.lines[$1].id
        }

        var texts = [String: LabelText]()
        var placed = [PlacedLabel]()
        var grid = CollisionGrid(cell: 64)
        for li in order {
            let line = trails.lines[li]
            let name = line.name!
            let text: LabelText
            if let t = texts[name] { text = t } else {
                text = LabelText(text: name, font: style.font, pixelSize: fontSize, on: scratch.cr)
                texts[name] = text
            }
            let w = text.width, h = text.height
            guard w > 0, h > 0, w < tile, h < tile else { continue }
            let tolerance = max(1.0, h * 0.2)
            for part in partsByLine[li]! {
                // The part in world pixels with its cumulative length.
                var px = [Double](), py = [Double](), cum = [Double]()
                px.reserveCapacity(part.count); py.reserveCapacity(part.count); cum.reserveCapacity(part.count)
                for i in part.start..<(part.start + part.count) {
                    let x = trails.xy[2 * i] * scale, y = trails.xy[2 * i + 1] * scale
                    cum.append(px.isEmpty ? 0 : cum[cum.count - 1] + hypot(x - px[px.count - 1], y - py[py.count - 1]))
                    px.append(x); py.append(y)
                }
                let total = cum[cum.count - 1]
                var c = w / 2 + 1
                while c + w / 2 + 1 <= total {
                    if let label = candidate(center: c, width: w, height: h, px: px, py: py, cum: cum,
                                             tolerance: tolerance, halo: halo, tile: tile),
                       !grid.hits(label.box.expanded(by: pad / 2)) {
                        grid.insert(label.box.expanded(by: pad / 2))
                        placed.append(PlacedLabel(lineID: line.id, text: name, centerX: label.cx, centerY: label.cy,
                                                  angle: label.angle, box: label.box,
                                                  tileX: Int((label.box.minX / tile).rounded(.down)),
                                                  tileY: Int((label.box.minY / tile).rounded(.down))))
                        c += max(style.labelSpacing, w + pad)
                    } else {
                        c += Self.step
                    }
                }
            }
        }
        return placed
    }

    /// The label centred `center` pixels along the part, if the text fits a straight enough
    /// stretch there and its box lies inside one tile.
    private func candidate(center: Double, width w: Double, height h: Double, px: [Double], py: [Double], cum: [Double],
                           tolerance: Double, halo: Double, tile: Double)
        -> (cx: Double, cy: Double, angle: Double, box: PixelBox)? {
        let (ax, ay, ia) = point(at: center - w / 2, px, py, cum)
        let (bx, by, ib) = point(at: center + w / 2, px, py, cum)
        let dx = bx - ax, dy = by - ay
        let chord = hypot(dx, dy)
        guard chord >= w * 0.95 else { return nil }
        // Every vertex between the ends lies within `tolerance` of the chord.
        if ia < ib {
            for i in (ia + 1)...ib where abs((px[i] - ax) * dy - (py[i] - ay) * dx) / chord > tolerance { return nil }
        }
        var angle = atan2(dy, dx)
        if angle > Double.pi / 2 { angle -= Double.pi } else if angle <= -Double.pi / 2 { angle += Double.pi }
        let cx = (ax + bx) / 2, cy = (ay + by) / 2
        let a = w / 2 + halo + 1, b = h / 2 + halo + 1
        let hx = abs(cos(angle)) * a + abs(sin(angle)) * b
        let hy = abs(sin(angle)) * a + abs(cos(angle)) * b
        let box = PixelBox(minX: cx - hx, minY: cy - hy, maxX: cx + hx, maxY: cy + hy)
        let tx = (box.minX / tile).rounded(.down), ty = (box.minY / tile).rounded(.down)
        guard box.maxX <= (tx + 1) * tile, box.maxY <= (ty + 1) * tile else { return nil }
        return (cx, cy, angle, box)
    }

    /// The point `d` pixels along the part and the index of the vertex before it.
    private func point(at d: Double, _ px: [Double], _ py: [Double], _ cum: [Double]) -> (Double, Double, Int) {
        var lo = 0, hi = cum.count - 1
        while hi - lo > 1 {
            let mid = (lo + hi) / 2
            if cum[mid] <= d { lo = mid } else { hi = mid }
        }
        let seg = cum[hi] - cum[lo]
        let t = seg > 0 ? min(max((d - cum[lo]) / seg, 0), 1) : 0
        return (px[lo] + (px[hi] - px[lo]) * t, py[lo] + (py[hi] - py[lo]) * t, lo)
    }
}

/// Boxes already taken, bucketed by square cells of world pixels.
struct CollisionGrid {
    let cell: Double
    private var boxes = [PixelBox]()
    private var cells = [SIMD2<Int>: [Int]]()

    init(cell: Double) { self.cell = cell }

    private func keys(_ b: PixelBox) -> [SIMD2<Int>] {
        let c0 = Int((b.minX / cell).rounded(.down)), c1 = Int((b.maxX / cell).rounded(.down))
        let r0 = Int((b.minY / cell).rounded(.down)), r1 = Int((b.maxY / cell).rounded(.down))
        var k = [SIMD2<Int>]()
        for r in r0...r1 { for c in c0...c1 { k.append(SIMD2(c, r)) } }
        return k
    }

    func hits(_ b: PixelBox) -> Bool {
        for k in keys(b) {
            for i in cells[k] ?? [] where boxes[i].overlaps(b) { return true }
        }
        return false
    }

    mutating func insert(_ b: PixelBox) {
        boxes.append(b)
        for k in keys(b) { cells[k, default: []].append(boxes.count - 1) }
    }
}
