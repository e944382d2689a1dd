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
    static func range(
        lowest: Int?, highest: Int?, from: SourceZooms, finest: Double?,
        region: (width: Double, height: Double), tileSize: Int
    ) -> (min: Int, max: Int) {
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
