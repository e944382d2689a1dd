import Foundation
import Logging
import Raster
import SourceReaders
import Terrain
import TileGeometry

/// How a terrain layer's hillshade is laid on the layers below it in the same bundle.
public enum TerrainBlend: String, Sendable, CaseIterable, Codable {
    /// Each colour multiplied by the shade, as strongly as the opacity `o` says: a colour `c`
    /// under shade `s` (0-255) becomes `c × (1 − o + o × s / 255)`.
    case multiply
    /// The grey shade drawn over the colours with the opacity: `c × (1 − o) + s × o`.
    case over
}

/// A terrain layer's hillshade laid on the tiles of the layers below it (`TerrainLayer.blend`):
/// each tile's shade is computed from the DEMs at that tile's own zoom (GDAL's warper onto the
/// tile's pixels and a border of one, averaging where the tile's pixels are coarser than the
/// finest DEM's, bilinear where finer), as in a terrain bundle, then blended into the tile's
/// colours. Pixels without an elevation (outside every DEM, voids) and transparent pixels are
/// left as they are; alpha is kept. Zooms outside the layer's range are not shaded.
struct TerrainShading: Sendable {
    let layer: TerrainLayer
    let hillshade: HillshadeOptions
    let blend: TerrainBlend
    let sources: TerrainSources
    let pool: DEMReaderPool

    /// Reads and checks the layer's DEMs (an error names the file).
    init(layer: TerrainLayer, logger: Logger) throws(BuildError) {
        guard let hillshade = layer.hillshade, let blend = layer.blend else { throw .terrain(.blendNeedsHillshade) }
        self.layer = layer
        self.hillshade = hillshade
        self.blend = blend
        sources = try TerrainSources.read(layer, logger: logger)
        pool = DEMReaderPool(paths: sources.dems.map(\.path), crs: layer.crs, unit: layer.verticalUnit)
    }

    /// Whether tiles of zoom `z` are shaded.
    func shades(_ z: Int) -> Bool { layer.zooms?.contains(z) ?? true }

    /// `image` (tile `tile`) with the hillshade blended in; the image itself where no DEM
    /// touches the tile or its zoom is not shaded.
    func shaded(_ image: RGBAImage, tile: TileID) throws(BuildError) -> RGBAImage {
        guard shades(tile.z) else { return image }
        let n = image.width
        let b = tile.mercatorBounds
        let pad = (b.maxX - b.minX) / Double(n)
        let padded = MercatorBounds(minX: b.minX - pad, minY: b.minY - pad, maxX: b.maxX + pad, maxY: b.maxY + pad)
        let sampling: DEMReader.Sampling = sources.finestPixel.map { (b.maxX - b.minX) / Double(n) > $0 } ?? true ? .average : .bilinear
        let readers = pool.take()
        defer { pool.give(readers) }
        var merged: [Float]?
        for (i, dem) in sources.dems.enumerated().reversed() where dem.mercatorParts.contains(where: { $0.intersects(padded) }) {
            let values: [Float]
            do {
                values = try pool.reader(i, in: readers).elevations(
                    minX: b.minX, minY: b.minY, maxX: b.maxX, maxY: b.maxY, size: n,
                    border: 1, sampling: sampling, errorThreshold: TerrainBlock.errorThreshold)
            } catch let error as SourceReaderError { throw .source(error) } catch { throw .pixels(path: dem.path, reason: "\(error)") }
            if merged == nil {
                merged = values
            } else {
                for k in merged!.indices where merged![k].isNaN { merged![k] = values[k] }
            }
        }
        guard let merged else { return image }
        let grid = ElevationGrid(size: n, border: 1, values: merged)
        if grid.isAllVoid { return image }
        let shade = Hillshade.shade(grid, options: hillshade, groundPixelSize: TerrainDrawing.groundPixelSize(tile: tile, size: n))
        var px = image.pixels
        // Pixels left as they are keep their rounding alternates (they encode as without the
        // shade); shaded ones are exact.
        var alternates = image.roundingAlternates.flatMap { $0.count == px.count ? $0 : nil }
        let o = layer.opacity
        for y in 0..<n {
            for x in 0..<n where !grid.value(x: x, y: y).isNaN {
                let i = (y * n + x) * 4
                guard px[i + 3] > 0 else { continue }
                let s = Double(shade[y * n + x])
                for c in i..<(i + 3) { px[c] = Self.blend(px[c], shade: s, opacity: o, blend: blend) }
                if alternates != nil { for c in i..<(i + 4) { alternates![c] = px[c] } }
            }
        }
        return RGBAImage(width: n, height: image.height, pixels: px, roundingAlternates: alternates)
    }

    /// Colour value `c` under shade `s` (0-255) at opacity `o`, rounded to the nearest.
    @inline(__always) static func blend(_ c: UInt8, shade s: Double, opacity o: Double, blend: TerrainBlend) -> UInt8 {
        let v =
            switch blend {
            case .multiply: Double(c) * (1 - o + o * s / 255)
            case .over: Double(c) * (1 - o) + s * o
            }
        return UInt8(min(255, max(0, v.rounded())))
    }
}
