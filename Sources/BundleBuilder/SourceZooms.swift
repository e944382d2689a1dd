import Foundation
import TileGeometry

/// Which ends of a build's zoom range come from its sources instead of `BuildOptions.minZoom` and
/// `maxZoom` (`trailmap build` without `--minzoom` or `--maxzoom`). They are chosen once the
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
    static let worldWidth = 2 * Double.pi * 6_378_137

    /// The size in Web Mercator metres of one of the source's pixels: the diagonal of its
    /// footprint over the diagonal of its pixel grid, as GDAL suggests a warp's output resolution
    /// (`GDALSuggestedWarpOutput`). A source across the antimeridian counts both parts' widths.
    static func pixelSize(_ info: SourceInfo) -> Double? {
        let parts = info.mercatorParts
        guard !parts.isEmpty else { return nil }
        let width = parts.reduce(0) { $0 + ($1.maxX - $1.minX) }
        let height = parts.map { $0.maxY - $0.minY }.max() ?? 0
        let pixels = (Double(info.width) * Double(info.width) + Double(info.height) * Double(info.height)).squareRoot()
        let size = (width * width + height * height).squareRoot() / pixels
        return size.isFinite && size > 0 ? size : nil
    }

    /// The highest zoom whose pixels (`tileSize` a tile) are at least `pixelSize` metres: the
    /// finest zoom that does not upsample (gdal2tiles' `ZoomForPixelSize`), at most `TileID.maxZoom`.
    static func zoom(forPixelSize pixelSize: Double, tileSize: Int) -> Int {
        var z = 0
        // The tolerance keeps a source exactly on a zoom's grid (an EPSG:3857 tile export) at that zoom.
        while z < TileID.maxZoom && worldWidth / (Double(tileSize) * Double(1 << (z + 1))) * (1 + 1e-9) >= pixelSize {
            z += 1
        }
        return z
    }

    /// The highest zoom at which an extent of `width` by `height` metres fits in one tile.
    static func zoom(fitting width: Double, _ height: Double) -> Int {
        let extent = Swift.max(width, height)
        guard extent > 0 else { return TileID.maxZoom }
        var z = 0
        while z < TileID.maxZoom && worldWidth / Double(1 << (z + 1)) >= extent { z += 1 }
        return z
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
