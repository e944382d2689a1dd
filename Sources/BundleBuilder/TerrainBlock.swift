import SourceReaders
import Terrain
import TileGeometry

/// A rectangle of one zoom's tiles whose elevations are warped in one piece (a meta-tile): one
/// GDAL warp, with its setup (transformer, options, in-memory grid), for up to `side`² tiles
/// instead of one per tile. Each tile's grid is then cut out of the block's, its border being
/// the neighbouring tiles' pixels.
struct TerrainBlock: Sendable {
    let tiles: TileRange

    /// The most pixels a block's side may have (a block's grid is `side² × 4` bytes of Float32
    /// per DEM, per thread).
    static let maxSidePixels = 2048
    /// The warper's interpolation error in source pixels: finer than GDAL's default (0.125),
    /// which a block's longer rows would otherwise spend (as shifts of elevations on slopes)
    /// where one tile's warp stays well inside it.
    static let errorThreshold = 0.05

    /// The blocks of `range`: squares of `side` tiles aligned on multiples of `side`, clipped to
    /// the range, rows north first.
    static func blocks(of range: TileRange, side: Int) -> [TerrainBlock] {
        precondition(side >= 1)
        var out = [TerrainBlock]()
        for by in stride(from: range.minY / side * side, through: range.maxY, by: side) {
            for bx in stride(from: range.minX / side * side, through: range.maxX, by: side) {
                out.append(
                    TerrainBlock(
                        tiles: TileRange(
                            z: range.z, minX: max(bx, range.minX), maxX: min(bx + side - 1, range.maxX),
                            minY: max(by, range.minY), maxY: min(by + side - 1, range.maxY))))
            }
        }
        return out
    }

    /// The side in tiles of a zoom's blocks: as many tiles as `maxSidePixels` allows, fewer
    /// (halving) while the range would have fewer than two blocks a thread.
    static func side(for range: TileRange, tileSize: Int, threads: Int) -> Int {
        var side = max(1, maxSidePixels / tileSize)
        while side > 1 && blocks(of: range, side: side).count < 2 * threads { side /= 2 }
        return side
    }

    /// The block's extent in EPSG:3857 metres (its border not included).
    var mercatorBounds: MercatorBounds {
        let northWest = WebMercator.tileBounds(TileID(unchecked: tiles.z, tiles.minX, tiles.minY))
        let southEast = WebMercator.tileBounds(TileID(unchecked: tiles.z, tiles.maxX, tiles.maxY))
        return MercatorBounds(minX: northWest.minX, minY: southEast.minY, maxX: southEast.maxX, maxY: northWest.maxY)
    }

    /// `bounds` grown by `border` pixels of `size`-pixel tiles at the block's zoom.
    func padded(_ bounds: MercatorBounds, size: Int, border: Int) -> MercatorBounds {
        let pad = WebMercator.tileSpan(zoom: tiles.z) / Double(size) * Double(border)
        return MercatorBounds(minX: bounds.minX - pad, minY: bounds.minY - pad, maxX: bounds.maxX + pad, maxY: bounds.maxY + pad)
    }

    /// The block's elevations over every DEM touching it (later DEMs over earlier ones where
    /// they have elevations); nil when none touches it.
    func elevations(
        size: Int, border: Int, dems: [TerrainSources.DEM], sampling: DEMReader.Sampling,
        pool: DEMReaderPool, readers: DEMReaderPool.Readers
    ) throws(BuildError) -> Elevations? {
        let b = mercatorBounds
        let padded = padded(b, size: size, border: border)
        let width = (tiles.maxX - tiles.minX + 1) * size, height = (tiles.maxY - tiles.minY + 1) * size
        var merged: [Float]?
        for (i, dem) in dems.enumerated().reversed() where dem.mercatorParts.contains(where: { $0.intersects(padded) }) {
            let values: [Float]
            do {
                values = try pool.reader(i, in: readers).elevations(
                    minX: b.minX, minY: b.minY, maxX: b.maxX, maxY: b.maxY,
                    width: width, height: height, border: border, sampling: sampling,
                    errorThreshold: Self.errorThreshold)
            } catch let error as SourceReaderError { throw .source(error) } catch { throw .pixels(path: dem.path, reason: "\(error)") }
            if merged == nil {
                merged = values
            } else {
                for k in merged!.indices where merged![k].isNaN { merged![k] = values[k] }
            }
        }
        return merged.map { Elevations(block: self, size: size, border: border, values: $0, rasterWidth: width + 2 * border) }
    }

    /// A block's warped elevations, from which each tile's grid is cut.
    struct Elevations {
        let block: TerrainBlock
        let size: Int
        let border: Int
        let values: [Float]
        let rasterWidth: Int

        /// Tile `t`'s grid (`t` must be one of the block's tiles).
        func grid(_ t: TileID) -> ElevationGrid {
            ElevationGrid(
                size: size, border: border, cutFrom: values, rasterWidth: rasterWidth,
                x: (t.x - block.tiles.minX) * size, y: (t.y - block.tiles.minY) * size)
        }
    }
}
