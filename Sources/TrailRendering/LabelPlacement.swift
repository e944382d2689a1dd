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

/// Where one glyph of a label sits: its centre on the line, in world pixels, and its angle.
public struct LabelGlyph: Sendable, Equatable {
    public var x: Double
    public var y: Double
    /// Radians, clockwise from east.
    public var angle: Double
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
    /// The axis-aligned box around the glyphs, turned along the line, and their halo.
    public var box: PixelBox
    /// Each glyph's place along the line (the text follows its bends).
    public var glyphs: [LabelGlyph]
    /// The column and row of the tile that holds the box and draws the label.
    public var tileX: Int
    public var tileY: Int
}

/// Places the trail names of one zoom over all the trails at once, so every tile that asks
/// sees the same labels: glyph by glyph along gently bending stretches of each line, longest lines first,
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
            if let t = texts[name] {
                text = t
            } else {
                text = LabelText(text: name, font: style.font, pixelSize: fontSize, on: scratch.cr)
                texts[name] = text
            }
            let w = text.width, h = text.height
            guard w > 0, h > 0, w < tile, h < tile else { continue }
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
                    if let label = candidate(center: c, text: text, px: px, py: py, cum: cum, halo: halo, tile: tile),
                        !grid.hits(label.box.expanded(by: pad / 2))
                    {
                        grid.insert(label.box.expanded(by: pad / 2))
                        placed.append(
                            PlacedLabel(
                                lineID: line.id, text: name, centerX: label.cx, centerY: label.cy,
                                angle: label.angle, box: label.box, glyphs: label.glyphs,
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

    /// Largest turn between neighbouring glyphs, and from the label's overall direction.
    static let maxGlyphTurn = 0.45
    static let maxTurn = 0.9

    /// The label centred `center` pixels along the part, if the line bends gently enough there
    /// for its glyphs and the box around them lies inside one tile.
    private func candidate(
        center: Double, text: LabelText, px: [Double], py: [Double], cum: [Double],
        halo: Double, tile: Double
    )
        -> (cx: Double, cy: Double, angle: Double, box: PixelBox, glyphs: [LabelGlyph])?
    {
        let w = text.width, h = text.height
        let (ax, ay, _) = point(at: center - w / 2, px, py, cum)
        let (bx, by, _) = point(at: center + w / 2, px, py, cum)
        let dx = bx - ax, dy = by - ay
        guard hypot(dx, dy) >= w * 0.8, !text.glyphs.isEmpty else { return nil }
        // Read left to right: along the line, or against it where the line runs west.
        let reversed = dx < 0
        let chordAngle = atan2(reversed ? -dy : dy, reversed ? -dx : dx)
        var glyphs = [LabelGlyph]()
        glyphs.reserveCapacity(text.glyphs.count)
        var box = PixelBox(minX: .infinity, minY: .infinity, maxX: -.infinity, maxY: -.infinity)
        let b = h / 2 + halo + 1
        for g in text.glyphs {
            let offset = g.x - text.x + g.advance / 2
            let s = reversed ? center + w / 2 - offset : center - w / 2 + offset
            let half = max(g.advance, 2) / 2
            let (x, y, _) = point(at: s, px, py, cum)
            let (x0, y0, _) = point(at: s - half, px, py, cum)
            let (x1, y1, _) = point(at: s + half, px, py, cum)
            var angle = atan2(y1 - y0, x1 - x0) + (reversed ? Double.pi : 0)
            angle = remainder(angle, 2 * Double.pi)
            // Within the turn allowed, and no glyph tipped more than a little past upright.
            guard abs(remainder(angle - chordAngle, 2 * Double.pi)) <= Self.maxTurn, cos(angle) > -0.2 else { return nil }
            if let last = glyphs.last, abs(remainder(angle - last.angle, 2 * Double.pi)) > Self.maxGlyphTurn { return nil }
            glyphs.append(LabelGlyph(x: x, y: y, angle: angle))
            let a = g.advance / 2 + halo + 1
            let hx = abs(cos(angle)) * a + abs(sin(angle)) * b
            let hy = abs(sin(angle)) * a + abs(cos(angle)) * b
            box.minX = min(box.minX, x - hx); box.maxX = max(box.maxX, x + hx)
            box.minY = min(box.minY, y - hy); box.maxY = max(box.maxY, y + hy)
        }
        let tx = (box.minX / tile).rounded(.down), ty = (box.minY / tile).rounded(.down)
        guard box.maxX <= (tx + 1) * tile, box.maxY <= (ty + 1) * tile else { return nil }
        let (cx, cy, _) = point(at: center, px, py, cum)
        return (cx, cy, chordAngle, box, glyphs)
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
