import Foundation
import Raster
import Terrain
import TileGeometry

/// Turns a tile's elevations into its image: the hillshade, the colour relief, the relief
/// shaded by the hillshade, or a terrain tile (elevations encoded in RGB, voids transparent).
struct TerrainDrawing: Sendable {
    let layer: TerrainLayer
    /// The colour ramp with its percentages placed on the DEMs' range.
    let ramp: ResolvedColorRamp?

    /// The tile's image; nil when every pixel is a void (or transparent).
    func image(_ grid: ElevationGrid, tile: TileID) -> RGBAImage? {
        let n = grid.size
        if grid.isAllVoid { return nil }
        var px = [UInt8](repeating: 0, count: n * n * 4)
        if let encoding = layer.encoding {
            let range = encoding.representableRange
            for y in 0..<n {
                for x in 0..<n {
                    let e = grid.value(x: x, y: y)
                    if e.isNaN { continue }
                    let (r, g, b) = encoding.encode(min(range.upperBound, max(range.lowerBound, Double(e))))
                    let i = (y * n + x) * 4
                    (px[i], px[i + 1], px[i + 2], px[i + 3]) = (r, g, b, 255)
                }
            }
            return RGBAImage(width: n, height: n, pixels: px)
        }
        let shade = layer.hillshade.map { options in
            Hillshade.shade(grid, options: options, groundPixelSize: Self.groundPixelSize(tile: tile, size: n))
        }
        let opacity = layer.opacity
        for y in 0..<n {
            for x in 0..<n {
                let e = grid.value(x: x, y: y)
                let i = (y * n + x) * 4
                if let ramp {
                    var (r, g, b, a) = ramp.colour(e)
                    if let shade, !e.isNaN {
                        // The relief multiplied by the shade, as strongly as the opacity says.
                        let f = 1 - opacity + opacity * Double(shade[y * n + x]) / 255
                        (r, g, b) = (UInt8(Double(r) * f + 0.5), UInt8(Double(g) * f + 0.5), UInt8(Double(b) * f + 0.5))
                    } else if shade == nil, opacity < 1 {
                        a = UInt8(Double(a) * opacity + 0.5)
                    }
                    (px[i], px[i + 1], px[i + 2], px[i + 3]) = (r, g, b, a)
                } else if let shade, !e.isNaN {
                    let v = shade[y * n + x]
                    (px[i], px[i + 1], px[i + 2], px[i + 3]) = (v, v, v, UInt8(255 * opacity + 0.5))
                }
            }
        }
        let image = RGBAImage(width: n, height: n, pixels: px)
        return image.isFullyTransparent ? nil : image
    }

    /// Whether the layer's tiles are grey: a hillshade alone (no colour relief, not terrain
    /// tiles), drawn by `grayImage`.
    var isGray: Bool { layer.encoding == nil && ramp == nil && layer.hillshade != nil }

    /// A grey layer's tile (`isGray`): the pixels `image` draws, as grey (the shade) and alpha
    /// (the layer's opacity; 0 on voids), the alpha left out when every pixel is opaque; nil when
    /// every pixel is transparent.
    func grayImage(_ grid: ElevationGrid, tile: TileID) -> GrayImage? {
        guard let options = layer.hillshade, ramp == nil, layer.encoding == nil, !grid.isAllVoid else { return nil }
        let n = grid.size
        let alpha = UInt8(255 * layer.opacity + 0.5)
        guard alpha > 0 else { return nil }
        // 0 exactly where the elevation is a void (a shade is 1-255): the grey of a transparent pixel.
        let shade = Hillshade.shade(grid, options: options, groundPixelSize: Self.groundPixelSize(tile: tile, size: n))
        guard alpha < 255 || shade.contains(0) else { return GrayImage(width: n, height: n, gray: shade) }
        return GrayImage(width: n, height: n, gray: shade, alpha: shade.map { $0 == 0 ? 0 : alpha })
    }

    /// The ground size in metres of a pixel of tile row `y`: its Web Mercator size times the
    /// cosine of the row's latitude (at its centre).
    static func groundPixelSize(tile: TileID, size: Int) -> (Int) -> Double {
        let b = tile.mercatorBounds
        let res = (b.maxX - b.minX) / Double(size)
        let rows = (0..<size).map { y -> Double in
            let my = b.maxY - (Double(y) + 0.5) * res
            let lat = WebMercator.unproject(x: 0, y: my).lat
            return res * cos(lat * Double.pi / 180)
        }
        return { rows[$0] }
    }
}
