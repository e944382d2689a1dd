import Foundation
import Logging
import SourceReaders
import Terrain
import Testing
import TileGeometry
@testable import BundleBuilder
import TrailMapTestSupport

/// Zooms below the DEM's native one made from the finer zoom's elevations (2×2 means) instead of
/// a warp of the DEM per zoom: they must hold what averaging the DEM onto each tile gives.
@Suite(.computeThreads) struct TerrainLevelTests {
    let fx = TerrainFixture()

    /// A pixel is the mean of the four under it, voids left out; four voids make a void; pixels
    /// outside the finer level count as voids.
    @Test func aCoarserPixelIsTheMeanOfTheFourUnderItVoidsLeftOut() {
        let fine = TerrainLevel(range: TileRange(z: 5, minX: 2, maxX: 3, minY: 4, maxY: 5), size: 2, border: 0)
        let block = TerrainBlock(tiles: fine.range)
        // The block's 4×4 pixels (no border): row-major, one void at (1, 0), a whole 2×2 of voids at (2...3, 2...3).
        var values: [Float] = (0..<16).map { Float($0) }
        values[1] = .nan
        for i in [10, 11, 14, 15] { values[i] = .nan }
        let coarse = TerrainLevel(range: TileRange(z: 4, minX: 1, maxX: 1, minY: 2, maxY: 2), size: 2, border: 0)
        coarse.fill(from: TerrainBlock.Elevations(block: block, size: 2, border: 0, values: values, rasterWidth: 4))
        let g = coarse.grid(TileID(unchecked: 4, 1, 2))
        #expect(g.value(x: 0, y: 0) == (0 + 4 + 5) / 3)
        #expect(g.value(x: 1, y: 0) == Float(2 + 3 + 6 + 7) / 4)
        #expect(g.value(x: 0, y: 1) == Float(8 + 9 + 12 + 13) / 4)
        #expect(g.value(x: 1, y: 1).isNaN)
        // One zoom lower: the tile (0, 1) at zoom 3 is 2×2 pixels, the first one covering the level's 4 pixels.
        let lower = coarse.coarser(range: TileRange(z: 3, minX: 0, maxX: 0, minY: 1, maxY: 1))
        let h = lower.grid(TileID(unchecked: 3, 0, 1))
        #expect(h.value(x: 0, y: 0).isNaN && h.value(x: 0, y: 1).isNaN && h.value(x: 1, y: 1).isNaN)
        let parts: [Float] = [Float(0 + 4 + 5) / 3, Float(2 + 3 + 6 + 7) / 4, Float(8 + 9 + 12 + 13) / 4]
        #expect(h.value(x: 1, y: 0) == parts.reduce(0, +) / 3)
    }

    /// The cone (with its void): a 4×4 block of zoom-11 tiles averaged from the DEM fills the
    /// zoom-10 level, which makes the zoom-9 one; every tile of both against the DEM averaged
    /// onto that tile alone by GDAL.
    @Test func levelsMadeFromTheFinerZoomHoldTheDEMAveragedOntoEachTile() throws {
        let dem = try fx.cone()
        let sources = try TerrainSources.read(TerrainLayer(sources: [dem]), logger: .init(label: "test"))
        let t9 = WebMercator.tile(lon: -105.515, lat: 39.983, zoom: 9)
        let block = TerrainBlock(tiles: TileRange(z: 11, minX: t9.x * 4, maxX: t9.x * 4 + 3, minY: t9.y * 4, maxY: t9.y * 4 + 3))
        let pool = DEMReaderPool(paths: [dem], crs: nil, unit: nil)
        let fine = try #require(
            try block.elevations(
                size: 256, border: 1, dems: sources.dems, sampling: .average, pool: pool,
                readers: pool.take()))
        let z10 = TerrainLevel(
            range: TileRange(z: 10, minX: t9.x * 2, maxX: t9.x * 2 + 1, minY: t9.y * 2, maxY: t9.y * 2 + 1),
            size: 256, border: 1)
        z10.fill(from: fine)
        let z9 = z10.coarser(range: TileRange(z: 9, minX: t9.x, maxX: t9.x, minY: t9.y, maxY: t9.y))
        let reader = try DEMReader(path: dem, crs: nil)
        var compared = 0, voids = 0, mismatched = 0, squares = 0.0
        for (level, tiles) in [(z10, Array(z10.range)), (z9, [t9])] {
            for t in tiles {
                let b = t.mercatorBounds
                let alone = try reader.elevations(
                    minX: b.minX, minY: b.minY, maxX: b.maxX, maxY: b.maxY, size: 256, border: 1,
                    sampling: .average, errorThreshold: 0)
                let grid = level.grid(t)
                for y in 0..<256 {
                    for x in 0..<256 {
                        let (a, c) = (alone[(y + 1) * 258 + x + 1], grid.value(x: x, y: y))
                        if a.isNaN || c.isNaN {
                            if a.isNaN != c.isNaN { mismatched += 1 } else { voids += 1 }
                            continue
                        }
                        compared += 1
                        squares += Double(a - c) * Double(a - c)
                        if abs(a - c) > 5 {
                            Issue.record("tile \(t) pixel \(x),\(y): from the finer zoom \(c), averaged alone \(a)")
                            return
                        }
                    }
                }
            }
        }
        #expect(compared > 5 * 1000 && voids > 4, "\(compared) compared, \(voids) voids")
        // A pixel on the void's edge may fall either way (GDAL counts a partly covered pixel).
        #expect(mismatched <= voids, "\(mismatched) pixels a void on one side only")
        #expect((squares / Double(max(compared, 1))).squareRoot() < 0.5, "RMS difference")
    }

    /// The zoom whose elevations make the levels below it: the highest one whose next lower
    /// zoom's level fits in memory, whether it averages the DEM or interpolates it.
    @Test func thePyramidTopIsTheHighestZoomWhoseLowerLevelFits() {
        func square(_ z: Int, _ side: Int) -> TileRange { TileRange(z: z, minX: 0, maxX: side - 1, minY: 0, maxY: side - 1) }
        #expect(TerrainPlan.pyramidTop(ranges: [square(11, 4), square(12, 8), square(13, 16)], size: 256, border: 1) == 13)
        // A zoom-12 level of 20×20 tiles is over `TerrainLevel.maxPixels`; zoom 11's 10×10 is not.
        #expect(TerrainPlan.pyramidTop(ranges: [square(11, 10), square(12, 20), square(13, 40)], size: 256, border: 1) == 12)
        #expect(TerrainPlan.pyramidTop(ranges: [square(12, 20), square(13, 40)], size: 256, border: 1) == nil)
        #expect(TerrainPlan.pyramidTop(ranges: [square(13, 4)], size: 256, border: 1) == nil)
    }
}
