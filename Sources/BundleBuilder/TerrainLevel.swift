import Terrain
import TileGeometry

/// One zoom's elevations over the build's whole tile range (with a border of pixels around it),
/// made from the next finer zoom's: each pixel the mean of the elevations of the 2×2 pixels it
/// covers (voids left out; a void where all four are). Web Mercator tiles nest, so this is the
/// area mean of the DEM over the pixel, as a warp averaging the DEM onto the zoom would give,
/// without reading and warping the whole DEM again for every zoom below its native one.
///
/// Its pixels are written by several threads at once (`fill(from:)`, each with its own block:
/// distinct pixels), hence a buffer of its own rather than an array.
final class TerrainLevel: @unchecked Sendable {
    /// The tiles the level covers.
    let range: TileRange
    /// Tile side in pixels.
    let size: Int
    /// Pixels of border around the range.
    let border: Int
    /// Pixels in a row and rows, border included.
    let width: Int
    let height: Int
    private let values: UnsafeMutableBufferPointer<Float>

    /// The most pixels a level may hold (`4` bytes each); zooms needing more are warped.
    static let maxPixels = 16 << 20

    /// A level of voids.
    init(range: TileRange, size: Int, border: Int) {
        self.range = range
        self.size = size
        self.border = border
        (width, height) = Self.dimensions(range: range, size: size, border: border)
        values = .allocate(capacity: width * height)
        values.initialize(repeating: .nan)
    }

    deinit { values.deallocate() }

    /// Pixels in a row and rows of a level over `range`, border included.
    static func dimensions(range: TileRange, size: Int, border: Int) -> (width: Int, height: Int) {
        ((range.maxX - range.minX + 1) * size + 2 * border, (range.maxY - range.minY + 1) * size + 2 * border)
    }

    /// The zoom's pixel column and row (over the whole world) of the level's first pixel.
    private var origin: (x: Int, y: Int) { (range.minX * size - border, range.minY * size - border) }

    /// The mean of the non-void values among four; NaN when all are voids.
    @inline(__always) private static func mean(_ a: Float, _ b: Float, _ c: Float, _ d: Float) -> Float {
        var sum: Float = 0, n: Float = 0
        if !a.isNaN { sum += a; n += 1 }
        if !b.isNaN { sum += b; n += 1 }
        if !c.isNaN { sum += c; n += 1 }
        if !d.isNaN { sum += d; n += 1 }
        return n == 0 ? .nan : sum / n
    }

    /// Writes the pixels covered by a block of the next finer zoom (its tiles, not its border):
    /// each the mean of the block's 2×2 pixels under it. Blocks of one zoom cover distinct tiles,
    /// so several threads may fill a level at once, each from its own blocks.
    func fill(from finer: TerrainBlock.Elevations) {
        let tiles = finer.block.tiles
        precondition(tiles.z == range.z + 1 && finer.size == size && size % 2 == 0)
        // The block's raster: its first pixel at column/row (tiles.minX × size - border) of its zoom.
        let fx = tiles.minX * size - finer.border, fy = tiles.minY * size - finer.border
        let (ox, oy) = origin
        let x0 = max(tiles.minX * size / 2, ox), x1 = min((tiles.maxX + 1) * size / 2, ox + width)
        let y0 = max(tiles.minY * size / 2, oy), y1 = min((tiles.maxY + 1) * size / 2, oy + height)
        guard x0 < x1 && y0 < y1 else { return }
        let w = finer.rasterWidth
        finer.values.withUnsafeBufferPointer { src in
            for y in y0..<y1 {
                let top = (2 * y - fy) * w, out = (y - oy) * width
                for x in x0..<x1 {
                    let i = top + 2 * x - fx
                    values[out + x - ox] = Self.mean(src[i], src[i + 1], src[i + w], src[i + w + 1])
                }
            }
        }
    }

    /// The next coarser zoom's level over `range` (a zoom lower by one): each pixel the mean of
    /// this level's 2×2 pixels under it, those outside this level left out.
    func coarser(range coarse: TileRange) -> TerrainLevel {
        precondition(coarse.z == range.z - 1)
        let out = TerrainLevel(range: coarse, size: size, border: border)
        let (ox, oy) = origin, (cx, cy) = out.origin
        for y in 0..<out.height {
            let r0 = 2 * (cy + y) - oy, r1 = r0 + 1
            let row0 = r0 >= 0 && r0 < height, row1 = r1 >= 0 && r1 < height
            guard row0 || row1 else { continue }
            for x in 0..<out.width {
                let c0 = 2 * (cx + x) - ox, c1 = c0 + 1
                let col0 = c0 >= 0 && c0 < width, col1 = c1 >= 0 && c1 < width
                guard col0 || col1 else { continue }
                let a: Float = row0 && col0 ? values[r0 * width + c0] : .nan
                let b: Float = row0 && col1 ? values[r0 * width + c1] : .nan
                let c: Float = row1 && col0 ? values[r1 * width + c0] : .nan
                let d: Float = row1 && col1 ? values[r1 * width + c1] : .nan
                out.values[y * out.width + x] = Self.mean(a, b, c, d)
            }
        }
        return out
    }

    /// Tile `t`'s grid, its border included (`t` must be in the level's range).
    func grid(_ t: TileID) -> ElevationGrid {
        precondition(t.z == range.z && t.x >= range.minX && t.x <= range.maxX && t.y >= range.minY && t.y <= range.maxY)
        return ElevationGrid(
            size: size, border: border, cutFrom: UnsafeBufferPointer(values), rasterWidth: width,
            x: (t.x - range.minX) * size, y: (t.y - range.minY) * size)
    }

    /// Whether any pixel of tile `t`'s grid (its border included) has an elevation.
    func hasElevations(_ t: TileID) -> Bool {
        let n = size + 2 * border, x = (t.x - range.minX) * size, y = (t.y - range.minY) * size
        for row in y..<(y + n) {
            for k in (row * width + x)..<(row * width + x + n) where !values[k].isNaN { return true }
        }
        return false
    }
}
