import SourceReaders
import Terrain
import TileGeometry

/// Checks before a terrain build writes anything that no tile's contour lines cross more than
/// `ContourLevels.maxLevelsPerTile` levels (a finer interval would draw the tile solid): for each
/// interval, at the lowest zoom drawing it (its tiles are the largest, so they cross the most
/// levels), the lowest and highest DEM pixel under each tile (GDAL's warper, `min` and `max`,
/// one pixel a tile) bound the levels the tile crosses. Skipped when the DEMs' whole range
/// holds few enough levels. The check reads the DEMs once per interval, in pieces of at most
/// `maxTiles` tiles (a grid of one pixel a tile that stays small however many tiles the zoom
/// has); a tile its bounds miss (elevations of the tile's border, a few pixels past its edge)
/// still stops the build with the same error.
struct TerrainContourCheck {
    /// The most tiles read in one piece by default.
    static let maxTiles = 4_000_000

    let layer: TerrainLayer
    let sources: TerrainSources
    /// The most tiles read in one piece.
    var maxTiles = Self.maxTiles

    /// The interval and the lowest zoom of `zooms` drawing it, lowest zoom first.
    static func groups(_ contours: ContourOptions, zooms: ClosedRange<Int>) -> [(levels: ContourLevels, zoom: Int)] {
        var out = [(levels: ContourLevels, zoom: Int)]()
        for z in zooms {
            guard let levels = contours.levels(zoom: z), !out.contains(where: { $0.levels == levels }) else { continue }
            out.append((levels, z))
        }
        return out
    }

    /// Throws `.terrain(.contourTile(tile, .tooManyLevels))` naming the first tile found that
    /// crosses too many levels.
    func check(zooms: ClosedRange<Int>, bounds: GeoBounds) throws(BuildError) {
        guard let contours = layer.contours else { return }
        let limit = ContourLevels.maxLevelsPerTile
        for (levels, z) in Self.groups(contours, zooms: zooms)
        where levels.count(from: sources.range.min, to: sources.range.max) > Double(limit) {
            for range in Self.pieces(of: TileRange(bounds: bounds, zoom: z), maxTiles: maxTiles) {
                let (low, high) = try extremes(range)
                let w = range.maxX - range.minX + 1
                for k in low.indices where !low[k].isNaN && !high[k].isNaN {
                    let count = levels.count(from: Double(min(low[k], high[k])), to: Double(max(low[k], high[k])))
                    guard count > Double(limit) else { continue }
                    let tile = TileID(unchecked: z, range.minX + k % w, range.minY + k / w)
                    throw .terrain(
                        .contourTile(
                            tile,
                            .tooManyLevels(
                                count: count < 1e18 ? Int(count) : Int(1e18), limit: limit,
                                interval: levels.interval)))
                }
            }
        }
    }

    /// `range` cut in rectangles of at most `maxTiles` tiles (whole rows of it while a row fits),
    /// rows north first: together they cover it once.
    static func pieces(of range: TileRange, maxTiles: Int) -> [TileRange] {
        let limit = max(1, maxTiles)
        let w = range.maxX - range.minX + 1
        let across = min(w, limit), down = max(1, limit / across)
        var out = [TileRange]()
        for y in stride(from: range.minY, through: range.maxY, by: down) {
            for x in stride(from: range.minX, through: range.maxX, by: across) {
                out.append(
                    TileRange(z: range.z, minX: x, maxX: min(x + across - 1, range.maxX), minY: y, maxY: min(y + down - 1, range.maxY)))
            }
        }
        return out
    }

    /// The lowest and highest elevation under each tile of `range` over every DEM (NaN: none),
    /// one value a tile, rows north first.
    private func extremes(_ range: TileRange) throws(BuildError) -> (low: [Float], high: [Float]) {
        let nw = WebMercator.tileBounds(TileID(unchecked: range.z, range.minX, range.minY))
        let se = WebMercator.tileBounds(TileID(unchecked: range.z, range.maxX, range.maxY))
        let w = range.maxX - range.minX + 1, h = range.maxY - range.minY + 1
        var low = [Float](repeating: .nan, count: w * h), high = low
        for dem in sources.dems {
            let reader: DEMReader
            do { reader = try DEMReader(path: dem.path, crs: layer.crs, unit: layer.verticalUnit) } catch { throw .source(error) }
            for (sampling, into) in [(DEMReader.Sampling.minimum, 0), (.maximum, 1)] {
                let values: [Float]
                do {
                    values = try reader.elevations(
                        minX: nw.minX, minY: se.minY, maxX: se.maxX, maxY: nw.maxY, width: w, height: h,
                        border: 0, sampling: sampling)
                } catch { throw .source(error) }
                for k in values.indices where !values[k].isNaN {
                    if into == 0 {
                        low[k] = low[k].isNaN ? values[k] : min(low[k], values[k])
                    } else {
                        high[k] = high[k].isNaN ? values[k] : max(high[k], values[k])
                    }
                }
            }
        }
        return (low, high)
    }
}
