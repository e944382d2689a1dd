import Foundation
import TileGeometry

/// Where a source raster lies on the globe, found from its size, CRS and georeference: its extent
/// in degrees and in Web Mercator metres, its parts either side of the antimeridian, the
/// longitude window of a grid in degrees past ±180°, and the size of its pixels in Web Mercator
/// metres.
///
/// The extent comes from a 33 × 33 grid of points over the raster (edges included) transformed
/// to WGS 84: interior points catch extremes the outline misses, such as a pole inside a polar
/// stereographic raster. Latitudes are clipped to the Mercator range in `mercator`. A source
/// whose longitudes are narrowest taken across the antimeridian (UTM zone 1 or 60, Alaska
/// Albers) spans every longitude in `bounds`, and `parts` holds its two sides. A source in
/// degrees past ±180° gets the `longitudeWindow` its tiles are mapped through.
public struct SourceFootprint: Sendable, Equatable {
    /// Extent in degrees (unclipped); a source crossing the antimeridian spans every longitude.
    public var bounds: GeoBounds
    /// Extent in Web Mercator metres, clipped to the Mercator square.
    public var mercator: MercatorBounds
    /// Where the source lies: `bounds` itself, or its two parts either side of the antimeridian.
    public var parts: [GeoBounds]
    /// For a source in degrees whose longitudes run past ±180° (a 0–360° grid, a sheet across
    /// 180°), the middle of its longitudes: tiles' longitudes are moved by whole turns to within
    /// 180° of it. Nil otherwise.
    public var longitudeWindow: Double?
    /// The size of one of its pixels in Web Mercator metres, as GDAL suggests a warp's output
    /// resolution (`pixelSize(corners:...)`); nil when it cannot be told.
    public var pixelSize: Double?

    /// A box of pixels: columns `x0..<x1`, rows `y0..<y1`.
    public typealias PixelBox = (x0: Int, y0: Int, x1: Int, y1: Int)

    /// Grid steps along each side of the raster (`steps + 1` points, edges included).
    static let steps = 32

    /// The footprint of a `width` × `height` raster in `crs`, georeferenced by `georeferencing`.
    /// With a pixel `window` (the part a neatline leaves drawn), the footprint is that part's.
    /// `path` names the raster in errors: `transformFailed` when no point maps to degrees, or for
    /// a raster in degrees from control points or RPCs across the antimeridian;
    /// `outsideMercator` when its extent lies outside the Web Mercator range.
    public init(
        path: String, width fullWidth: Int, height fullHeight: Int, crs: SpatialReference,
        georeferencing: Georeferencing, window pixels: PixelBox? = nil
    ) throws(SourceReaderError) {
        let whole = (x0: 0, y0: 0, x1: fullWidth, y1: fullHeight)
        let box = pixels.flatMap { $0.x1 > $0.x0 && $0.y1 > $0.y0 ? $0 : nil } ?? whole
        let (width, height) = (box.x1 - box.x0, box.y1 - box.y0)
        let sampler = try FootprintSampler(path: path, crs: crs, georeferencing: georeferencing, box: box)
        let (xs, ys) = sampler.grid(Self.steps)
        let valid = xs.indices.filter { xs[$0].isFinite && ys[$0].isFinite }
        guard !valid.isEmpty else {
            throw .transformFailed(path: path, reason: "no point of the raster maps to longitude/latitude")
        }
        // The window's first and last corners (pixel (0, 0) and (width, height) of a whole raster),
        // before any wrapping.
        let corners = (lon0: xs[0], lat0: ys[0], lon1: xs[xs.count - 1], lat1: ys[ys.count - 1])
        let lons = Self.longitudes(xs: xs, ys: ys, valid: valid)
        var extent = FootprintExtent(
            bounds: GeoBounds(
                west: lons.min()!, south: valid.map { ys[$0] }.min()!,
                east: lons.max()!, north: valid.map { ys[$0] }.max()!))
        try extent.placeAcrossAntimeridian(lons: lons, crs: crs, georeferencing: georeferencing, width: width, path: path)
        if crs.kind == nil {
            extent.reachPoles(sampler)
            // Points outside the projection's domain (the corners of a world Mollweide, around an
            // orthographic disc): the outline lies between them and the valid ones.
            if valid.count < xs.count { extent.reachOutline(sampler, xs: xs, ys: ys) }
        }
        let bounds = extent.bounds
        guard bounds.west >= -180.5, bounds.east <= 180.5, bounds.south >= -90.5, bounds.north <= 90.5,
            let clipped = bounds.clippedToMercator
        else { throw .outsideMercator(path: path, bounds: bounds) }
        self.bounds = bounds
        mercator = clipped.mercator
        parts = extent.parts
        longitudeWindow = extent.window
        pixelSize = Self.pixelSize(
            corners: corners, acrossAntimeridian: parts.count == 2, parts: parts, bounds: bounds,
            width: width, height: height)
    }

    /// The longitudes the extent is taken from: those of the points with a longitude of their
    /// own (`FootprintSampler.placed`; all valid points when none has), an edge on the
    /// antimeridian of a raster on one side of it moved to that side.
    static func longitudes(xs: [Double], ys: [Double], valid: [Int]) -> [Double] {
        // A point at a pole counts for its latitude, not its longitude.
        let withLongitude = FootprintSampler.placed(xs, ys)
        var lons = (withLongitude.isEmpty ? valid : withLongitude).map { xs[$0] }
        // An edge on the antimeridian, of a raster on one side of it, is that side's: ±180° as
        // PROJ gives it would otherwise span the world (a polar quadrant from -180° to -90°).
        let onEdge = { (lon: Double) in abs(abs(lon) - 180) <= 1e-9 }
        let inside = lons.filter { !onEdge($0) }
        if !inside.isEmpty, inside.allSatisfy({ $0 < 0 }) || inside.allSatisfy({ $0 > 0 }) {
            let side: Double = inside[0] < 0 ? -180 : 180
            lons = lons.map { onEdge($0) ? side : $0 }
        }
        return lons
    }

    /// The size in Web Mercator metres of one of a source's pixels, as GDAL suggests a warp's
    /// output resolution (`GDALSuggestedWarpOutput2`): the distance from pixel (0, 0) to pixel
    /// (width, height), `corners` in degrees, over the pixel grid's diagonal, so a rotated
    /// footprint counts as its own length, not its box's. When a corner lies outside the
    /// Mercator square (past ±85.05°), the diagonal of the footprint's box (`parts`, clipped; its
    /// parts either side of the antimeridian side by side) over the diagonal of the rows inside.
    /// `acrossAntimeridian`: the footprint lies either side of 180°, so corners whose longitudes
    /// are more than half a turn apart are close the other way round.
    static func pixelSize(
        corners: (lon0: Double, lat0: Double, lon1: Double, lat1: Double), acrossAntimeridian: Bool,
        parts: [GeoBounds], bounds: GeoBounds, width: Int, height: Int
    ) -> Double? {
        let limit = WebMercator.maxLatitude, worldWidth = WebMercator.tileSpan(zoom: 0)
        let c = corners
        if [c.lon0, c.lat0, c.lon1, c.lat1].allSatisfy(\.isFinite), abs(c.lat0) <= limit, abs(c.lat1) <= limit {
            let a = WebMercator.project(lon: c.lon0, lat: c.lat0), b = WebMercator.project(lon: c.lon1, lat: c.lat1)
            var dx = abs(b.x - a.x)
            if acrossAntimeridian && dx > worldWidth / 2 { dx = worldWidth - dx }
            let distance = (dx * dx + abs(b.y - a.y) * abs(b.y - a.y)).squareRoot()
            if distance > 0 { return distance / hypot(Double(width), Double(height)) }
        }
        let boxes = parts.compactMap { $0.clippedToMercator?.mercator }
        guard !boxes.isEmpty, bounds.north > bounds.south else { return nil }
        let w = boxes.reduce(0) { $0 + ($1.maxX - $1.minX) }, h = boxes.map { $0.maxY - $0.minY }.max() ?? 0
        let kept = (Swift.min(bounds.north, limit) - Swift.max(bounds.south, -limit)) / (bounds.north - bounds.south)
        let size = (w * w + h * h).squareRoot() / hypot(Double(width), Double(height) * Swift.min(1, Swift.max(kept, 0)))
        return size.isFinite && size > 0 ? size : nil
    }
}
