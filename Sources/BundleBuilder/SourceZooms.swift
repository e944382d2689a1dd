import Foundation
import TileGeometry

/// Which ends of a build's zoom range come from its sources instead of `BuildOptions.minZoom` and
/// `maxZoom` (a build given neither or only one of them). They are chosen once the
/// sources are read, as gdal2tiles chooses them: the highest zoom whose pixels are not finer than
/// the finest source's (no upsampling), and the highest zoom at which the whole region fits in
/// one tile.
public struct SourceZooms: OptionSet, Sendable, Hashable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// The lowest zoom: the region in one tile.
    public static let min = SourceZooms(rawValue: 1)
    /// The highest zoom: the finest source's resolution.
    public static let max = SourceZooms(rawValue: 2)
    public static let both: SourceZooms = [.min, .max]
}

/// The arithmetic behind `SourceZooms`, in Web Mercator metres.
enum ZoomChoice {
    /// Width of a zoom-0 tile: the Mercator square's side.
    static let worldWidth = WebMercator.tileSpan(zoom: 0)

    /// The size in Web Mercator metres of one of a source's pixels, as GDAL suggests a warp's
    /// output resolution (`GDALSuggestedWarpOutput2`): the distance from pixel (0, 0) to pixel
    /// (width, height), `corners` in degrees, over the pixel grid's diagonal, so a rotated
    /// footprint counts as its own length, not its box's. When a corner lies outside the
    /// Mercator square (past ±85.05°), the diagonal of the footprint's box (`parts`, clipped; its
    /// parts either side of the antimeridian side by side) over the diagonal of the rows inside.
    /// `acrossAntimeridian`: the footprint lies either side of 180°, so corners whose longitudes
    /// are more than half a turn apart are close the other way round.
    static func pixelSize(corners: (lon0: Double, lat0: Double, lon1: Double, lat1: Double), acrossAntimeridian: Bool,
                          parts: [GeoBounds], bounds: GeoBounds, width: Int, height: Int) -> Double? {
        let limit = WebMercator.maxLatitude
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

    /// The highest zoom whose pixels (`tileSize` a tile) are at least `pixelSize` metres: the
    /// finest zoom that does not upsample (gdal2tiles' `ZoomForPixelSize`), at most `TileID.maxZoom`.
    static func zoom(forPixelSize pixelSize: Double, tileSize: Int) -> Int {
        var z = 0
        // The tolerance keeps a source exactly on a zoom's grid (an EPSG:3857 tile export) at that zoom.
        while z < TileID.maxZoom && WebMercator.resolution(zoom: z + 1, tileSize: tileSize) * (1 + 1e-9) >= pixelSize { z += 1 }
        return z
    }

    /// The highest zoom whose tiles are at least `width` and `height` metres wide and tall (a
    /// region that size still straddles tile edges, as gdal2tiles' lowest zoom does). The
    /// tolerance keeps a region of exactly one tile (a tile's own bounds, through degrees and
    /// back) at that tile's zoom.
    static func zoom(fitting width: Double, _ height: Double) -> Int {
        // A whole tile as one pixel: the zoom whose tiles are at least that wide.
        zoom(forPixelSize: Swift.max(width, height), tileSize: 1)
    }

    /// The zoom range a build takes. For an end in `from`, `lowest`/`highest` are the other
    /// layers' zooms (those with a range of their own; nil when none has one), extended to the
    /// sources': `finest` is the smallest pixel (metres) of the sources without a range,
    /// `region` the region's extent in metres. For an end not in `from`, they are the end given.
    /// A chosen end never crosses the other: the lowest zoom is at most the highest.
    static func range(lowest: Int?, highest: Int?, from: SourceZooms, finest: Double?,
                      region: (width: Double, height: Double), tileSize: Int) -> (min: Int, max: Int) {
        var lo = lowest ?? TileID.maxZoom, hi = highest ?? 0
        if from.contains(.max) {
            hi = Swift.max(hi, finest.map { zoom(forPixelSize: $0, tileSize: tileSize) } ?? 0)
            if !from.contains(.min) { hi = Swift.max(hi, lo) }
        }
        if from.contains(.min) {
            lo = Swift.min(lo, zoom(fitting: region.width, region.height), hi)
        }
        return (lo, hi)
    }
}
