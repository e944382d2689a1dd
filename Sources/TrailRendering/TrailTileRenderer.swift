import CCairo
import Foundation
import Raster
import TileGeometry

/// Draws trail lines into transparent Web Mercator tiles: anti-aliased strokes with round joins
/// and caps over a casing, width by zoom, colour by difficulty (`StrokeRasterizer`), and names
/// along the lines (Cairo and Pango) at `style.labelMinZoom` and above.
///
/// The lines are projected once; a grid over pieces of at most 64 segments lets each tile draw
/// only the pieces near it, with a margin wider than the stroke so that strokes crossing a tile
/// edge join seamlessly with the neighbouring tile. Labels are placed once per zoom over all
/// the lines (`labels(zoom:tileSize:)`), so every tile sees the same placement whatever order
/// tiles are asked in; a tile draws only the labels lying wholly inside it. Thread-safe.
public final class TrailTileRenderer: @unchecked Sendable {
    /// The largest tile side accepted, in pixels.
    public static let maxTileSize = 4096

    /// The style every tile is drawn with.
    public let style: TrailStyle
    /// What was wrong with the input lines (those parts are not drawn).
    public var issues: [TrailLineIssue] { trails.issues }

    let trails: ProjectedTrails
    private let grid: ChunkGrid
    private let lock = NSLock()
    private var placements = [LabelKey: Placement]()

    private struct LabelKey: Hashable { let zoom: Int, tileSize: Int }
    private struct TileKey: Hashable { let x: Int, y: Int }
    private struct Placement {
        let all: [PlacedLabel]
        let byTile: [TileKey: [PlacedLabel]]
    }

    /// Projects and indexes `lines` once (invalid parts are left out and listed in `issues`).
    public init(lines: [TrailLine], style: TrailStyle = TrailStyle()) {
        self.style = style
        trails = ProjectedTrails(lines)
        grid = ChunkGrid(trails.chunks)
    }

    /// The tile z/x/y (XYZ rows from the north) as a transparent overlay of `tileSize` pixels.
    public func render(z: Int, x: Int, y: Int, tileSize: Int = 256) throws(TrailRenderingError) -> RGBAImage {
        guard let tile = TileID(z: z, x: x, y: y) else { throw .invalidTile(z: z, x: x, y: y) }
        guard (1...Self.maxTileSize).contains(tileSize) else { throw .invalidTileSize(tileSize) }
        return try renderWindow(
            zoom: tile.z, originX: tile.x * tileSize, originY: tile.y * tileSize,
            width: tileSize, height: tileSize, tileSize: tileSize)
    }

    /// Draws the tile's trails over `base` ("source over"); `base` must be `tileSize` square.
    public func render(z: Int, x: Int, y: Int, tileSize: Int = 256, over base: inout RGBAImage) throws(TrailRenderingError) {
        guard base.width == tileSize, base.height == tileSize else {
            throw .baseSizeMismatch(width: base.width, height: base.height, tileSize: tileSize)
        }
        let overlay = try render(z: z, x: x, y: y, tileSize: tileSize)
        Self.composite(overlay, over: &base)
    }

    /// Draws `overlay` over `base` ("source over", straight alpha); both the same size.
    public static func composite(_ overlay: RGBAImage, over base: inout RGBAImage) {
        Compositing.draw(overlay, over: &base)
    }

    /// Every label placed at `zoom` for tiles of `tileSize` pixels (empty below
    /// `style.labelMinZoom`), computed once and kept.
    public func labels(zoom: Int, tileSize: Int = 256) -> [PlacedLabel] {
        placement(zoom: zoom, tileSize: tileSize).all
    }

    private func placement(zoom: Int, tileSize: Int) -> Placement {
        let key = LabelKey(zoom: zoom, tileSize: tileSize)
        lock.lock()
        defer { lock.unlock() }
        if let p = placements[key] { return p }
        let all =
            zoom >= style.labelMinZoom && zoom >= style.minZoom
            ? LabelPlacement(trails: trails, style: style, zoom: zoom, tileSize: tileSize).place() : []
        let p = Placement(all: all, byTile: Dictionary(grouping: all) { TileKey(x: $0.tileX, y: $0.tileY) })
        placements[key] = p
        return p
    }

    /// Draws a window of world pixels at `zoom` (origin at its top-left), with the labels of the
    /// `tileSize` tiles inside it.
    func renderWindow(
        zoom: Int, originX: Int, originY: Int, width: Int, height: Int,
        tileSize: Int
    ) throws(TrailRenderingError) -> RGBAImage {
        guard zoom >= style.minZoom else { return RGBAImage(width: width, height: height) }
        let scale = Double(1 << zoom) * Double(tileSize)
        let lineWidth = max(style.lineWidth.value(at: Double(zoom)), 0)
        let casing = max(style.casingWidth.value(at: Double(zoom)), 0)
        let margin = lineWidth / 2 + casing + 2
        let window = (
            minX: Double(originX) - margin, minY: Double(originY) - margin,
            maxX: Double(originX + width) + margin, maxY: Double(originY + height) + margin
        )
        let query = WorldBox(
            minX: window.minX / scale, minY: window.minY / scale,
            maxX: window.maxX / scale, maxY: window.maxY / scale)
        let found = grid.chunks(meeting: query, in: trails.chunks)
        var strokes: [UInt8]?
        if !found.isEmpty, lineWidth > 0 {
            let path = StrokePath(
                trails: trails, scale: scale, originX: Double(originX), originY: Double(originY),
                width: Double(width), height: Double(height), margin: margin)
            var raster = StrokeRasterizer(width: width, height: height, outerHalf: lineWidth / 2 + casing, lineHalf: lineWidth / 2)
            var run = [SIMD2<Double>](), keep = [Bool]()
            // The lines of each difficulty over those of lower ones (chunks come sorted by line).
            var i = 0
            while i < found.count {
                let difficulty = trails.lines[trails.chunks[found[i]].line].difficulty
                raster.begin(difficulty)
                while i < found.count, trails.lines[trails.chunks[found[i]].line].difficulty == difficulty {
                    path.add(trails.chunks[found[i]], run: &run, keep: &keep) { a, b in raster.add(a, b) }
                    i += 1
                }
            }
            strokes = raster.image(
                casing: casing > 0 && style.casingColor.alpha > 0 ? style.casingColor : nil,
                colors: style.color(for:))
        }
        var labels = [PlacedLabel]()
        if zoom >= style.labelMinZoom {
            let placed = placement(zoom: zoom, tileSize: tileSize)
            let tx0 = originX / tileSize, ty0 = originY / tileSize
            let tx1 = (originX + width - 1) / tileSize, ty1 = (originY + height - 1) / tileSize
            for ty in ty0...ty1 {
                for tx in tx0...tx1 { labels += placed.byTile[TileKey(x: tx, y: ty)] ?? [] }
            }
        }
        guard !labels.isEmpty else {
            return strokes.map { RGBAImage(width: width, height: height, pixels: $0) } ?? RGBAImage(width: width, height: height)
        }
        guard let canvas = CairoCanvas(width: width, height: height) else {
            throw .surfaceUnavailable(width: width, height: height)
        }
        if let strokes { canvas.load(strokes) }
        var texts = [String: LabelText]()
        let fontSize = style.fontSize.value(at: Double(zoom))
        for label in labels {
            let text: LabelText
            if let t = texts[label.text] {
                text = t
            } else {
                text = LabelText(text: label.text, font: style.font, pixelSize: fontSize, on: canvas.cr)
                texts[label.text] = text
            }
            text.draw(on: canvas, glyphs: label.glyphs, originX: Double(originX), originY: Double(originY), style: style)
        }
        return canvas.image()
    }
}
