import Raster
import Terrain
import TileGeometry
import TrailRendering

/// The levels of a terrain layer's contour lines over a range of zooms.
public struct ContourZoomRange: Sendable, Equatable {
    public var zooms: ClosedRange<Int>
    public var levels: ContourLevels

    public init(zooms: ClosedRange<Int>, levels: ContourLevels) {
        self.zooms = zooms
        self.levels = levels
    }
}

/// A terrain layer's contour lines: their levels (one interval for every zoom, or one per zoom
/// range), and how they are drawn over the layer's hillshade or colour relief (or alone, on
/// transparent tiles) with the trails' line renderer, index contours heavier.
public struct ContourOptions: Sendable, Equatable {
    /// The levels at zooms that no range of `zoomLevels` holds; nil: no contours there.
    public var levels: ContourLevels?
    /// Levels for ranges of zooms (ranges that do not overlap), over `levels`.
    public var zoomLevels: [ContourZoomRange] = []
    public var color = TrailColor(red: 0x6b, green: 0x4f, blue: 0x2a)
    /// The lines' width in pixels, and the index contours'.
    public var width = 0.8
    public var indexWidth = 1.6
    /// A factor on the lines' alpha, more than 0 and at most 1.
    public var opacity = 1.0

    /// Contours every `interval` metres at every zoom, every `indexEvery`-th an index contour.
    public init(interval: Double? = nil, indexEvery: Int = 5) {
        levels = interval.map { ContourLevels(interval: $0, indexEvery: indexEvery) }
    }

    /// The levels drawn at zoom `z`, or nil for none.
    public func levels(zoom z: Int) -> ContourLevels? {
        zoomLevels.first { $0.zooms.contains(z) }?.levels ?? levels
    }

    /// What is wrong with the options, or nil.
    public var problem: ContourOptionProblem? {
        if levels == nil && zoomLevels.isEmpty { return .noLevels }
        if let p = levels?.problem { return .levels(p, zooms: nil) }
        for (i, r) in zoomLevels.enumerated() {
            if let p = r.levels.problem { return .levels(p, zooms: r.zooms) }
            if let other = zoomLevels[..<i].first(where: { $0.zooms.overlaps(r.zooms) }) { return .overlappingZooms(other.zooms, r.zooms) }
        }
        if !(width.isFinite && width > 0 && width <= Self.maxWidth) { return .width(width) }
        if !(indexWidth.isFinite && indexWidth > 0 && indexWidth <= Self.maxWidth) { return .indexWidth(indexWidth) }
        if !(opacity > 0 && opacity <= 1) { return .opacity(opacity) }
        return nil
    }

    /// The widest line accepted, in pixels.
    public static let maxWidth = 16.0

    /// The pixels of elevations needed beyond a tile's edges for lines crossing them to be
    /// drawn as wide as inside (half the widest line, and the cell that reaches past it).
    var border: Int { Int((max(width, indexWidth) / 2).rounded(.up)) + 1 }

    /// `base` (nil: a transparent tile) with the contour lines of `grid` drawn over it at zoom
    /// `zoom`: the ordinary levels, then the index ones; nil when nothing is drawn at all.
    func drawn(over base: RGBAImage?, grid: ElevationGrid, zoom: Int) throws(ContourError) -> RGBAImage? {
        guard let levels = levels(zoom: zoom) else { return base }
        let lines = try Contours.trace(grid, levels: levels)
        guard !lines.isEmpty else { return base }
        var image = base ?? RGBAImage(width: grid.size, height: grid.size)
        var c = color
        c.alpha = UInt8((Double(c.alpha) * opacity).rounded())
        PixelLines.draw(lines.filter { !$0.isIndex }.map(\.points), width: width, color: c, over: &image)
        PixelLines.draw(lines.filter(\.isIndex).map(\.points), width: indexWidth, color: c, over: &image)
        return image.isFullyTransparent ? nil : image
    }
}

/// A contour option out of its range (the values given; the manifest reader and the CLI word them).
public enum ContourOptionProblem: Error, Sendable, Equatable, CustomStringConvertible {
    /// Neither an interval for every zoom nor one for a zoom range.
    case noLevels
    /// The levels of every zoom (`zooms` nil) or of a zoom range are not valid.
    case levels(ContourError, zooms: ClosedRange<Int>?)
    /// Two zoom ranges overlap.
    case overlappingZooms(ClosedRange<Int>, ClosedRange<Int>)
    case width(Double)
    case indexWidth(Double)
    case opacity(Double)

    public var description: String {
        switch self {
        case .noLevels: "the contours have no interval: give one for every zoom or for ranges of zooms"
        case let .levels(e, zooms?): "zooms \(zooms.lowerBound)-\(zooms.upperBound): \(e)"
        case let .levels(e, nil): e.description
        case let .overlappingZooms(a, b):
            "the zoom ranges \(a.lowerBound)-\(a.upperBound) and \(b.lowerBound)-\(b.upperBound) overlap: give each zoom one interval"
        case let .width(w): "the contour width \(w) must be more than 0 and at most \(ContourOptions.maxWidth) pixels"
        case let .indexWidth(w): "the index contour width \(w) must be more than 0 and at most \(ContourOptions.maxWidth) pixels"
        case let .opacity(o): "the contours' opacity \(o) must be more than 0 and at most 1"
        }
    }
}

extension TerrainDrawing {
    /// The tile's drawn image with the contour lines, if any, drawn over it.
    func image(_ grid: ElevationGrid, tile: TileID, contours: ContourOptions?) throws(BuildError) -> RGBAImage? {
        let image = image(grid, tile: tile)
        guard let contours else { return image }
        do { return try contours.drawn(over: image, grid: grid, zoom: tile.z) } catch { throw .terrain(.contourTile(tile, error)) }
    }
}
