import Foundation
import Logging
import Raster
import SourceReaders
import Terrain
import Testing
import TileGeometry
@testable import BundleBuilder
import TrailMapTestSupport

/// Meta-tiles of a terrain build: how a zoom's tiles are grouped, and that a tile's grid cut
/// out of its block's warp holds what a warp of that tile alone gives, border included.
@Suite(.computeThreads) struct TerrainBlockTests {
    let fx = TerrainFixture()

    @Test(arguments: [
        (TileRange(z: 12, minX: 837, maxX: 851, minY: 1541, maxY: 1549), 8),
        (TileRange(z: 12, minX: 840, maxX: 840, minY: 1541, maxY: 1541), 4),
        (TileRange(z: 9, minX: 3, maxX: 20, minY: 0, maxY: 7), 2)
    ])
    func blocksCoverTheRangeOnceAlignedOnTheirSide(_ range: TileRange, _ side: Int) {
        let blocks = TerrainBlock.blocks(of: range, side: side)
        var seen = [TileID: Int]()
        for block in blocks {
            #expect(block.tiles.z == range.z)
            #expect(
                block.tiles.minX / side == block.tiles.maxX / side && block.tiles.minY / side == block.tiles.maxY / side,
                "\(block.tiles) crosses a multiple of \(side)")
            for t in block.tiles { seen[t, default: 0] += 1 }
        }
        #expect(seen.count == range.count && seen.values.allSatisfy { $0 == 1 })
        #expect(Set(seen.keys) == Set(range))
    }

    @Test func smallRangesGetSmallerBlocksToKeepThreadsBusy() {
        let big = TileRange(z: 14, minX: 0, maxX: 63, minY: 0, maxY: 63)
        #expect(TerrainBlock.side(for: big, tileSize: 256, threads: 2) == 8)
        #expect(TerrainBlock.side(for: big, tileSize: 512, threads: 2) == 4)
        let small = TileRange(z: 11, minX: 420, maxX: 423, minY: 772, maxY: 775)
        let side = TerrainBlock.side(for: small, tileSize: 256, threads: 2)
        #expect(TerrainBlock.blocks(of: small, side: side).count >= 4 && side == 2)
        #expect(TerrainBlock.side(for: TileRange(z: 8, minX: 52, maxX: 52, minY: 96, maxY: 96), tileSize: 256, threads: 2) == 1)
    }

    /// Every tile of a 3×3 block of the cone (voids included), bilinear and average: its grid cut
    /// from the block's warp against the DEM warped to that tile alone with every pixel's position
    /// transformed exactly, border pixels too (they come from the neighbouring tiles' part of
    /// the block).
    @Test(arguments: [DEMReader.Sampling.bilinear, .average])
    func aTileCutFromItsBlockHoldsItsOwnWarp(_ sampling: DEMReader.Sampling) throws {
        let dem = try fx.cone()
        let sources = try TerrainSources.read(TerrainLayer(sources: [dem]), logger: .init(label: "test"))
        let centre = WebMercator.tile(lon: -105.515, lat: 39.983, zoom: 13)
        let block = TerrainBlock(tiles: TileRange(z: 13, minX: centre.x - 1, maxX: centre.x + 1, minY: centre.y - 1, maxY: centre.y + 1))
        let pool = DEMReaderPool(paths: [dem], crs: nil, unit: nil)
        let readers = pool.take()
        let cut = try #require(
            try block.elevations(size: 256, border: 1, dems: sources.dems, sampling: sampling, pool: pool, readers: readers))
        let reader = try DEMReader(path: dem, crs: nil)
        var compared = 0, voids = 0, squares = 0.0
        for t in block.tiles {
            let b = t.mercatorBounds
            let alone = try reader.elevations(
                minX: b.minX, minY: b.minY, maxX: b.maxX, maxY: b.maxY, size: 256, border: 1, sampling: sampling,
                errorThreshold: 0)
            let grid = cut.grid(t)
            #expect(grid.values.count == alone.count)
            for i in alone.indices {
                let (a, c) = (alone[i], grid.values[i])
                if a.isNaN || c.isNaN {
                    // A pixel on the void's very edge may fall either way between two warps.
                    if a.isNaN != c.isNaN { continue }
                    voids += 1
                    continue
                }
                compared += 1
                squares += Double(a - c) * Double(a - c)
                // The block's transformer interpolates between exact points (a tiny shift); a tile
                // cut one pixel off would be metres off on the slope.
                if abs(a - c) > 2 {
                    Issue.record("tile \(t) value \(i % 258),\(i / 258): block \(c), alone \(a)")
                    return
                }
            }
        }
        #expect(compared > 400_000 && voids > 100, "\(compared) compared, \(voids) voids")
        #expect((squares / Double(max(compared, 1))).squareRoot() < 0.25, "RMS difference")
    }
}

/// A terrain manifest's PNG tiles default to the terrain effort; one the manifest names wins.
@Suite(.computeThreads) struct TerrainEffortTests {
    let fx = TerrainFixture()

    @Test func terrainManifestsDefaultToTheTerrainEffort() throws {
        let dem = try fx.dem("flat", size: 20, cell: 30, x0: 450_000, y0: 4_420_000, srs: "EPSG:32613") { _, _ in 100 }
        func level(_ output: String, kind: String) throws -> Int {
            let manifest = fx.dir.file("m-\(UUID().uuidString).json")
            let layer =
                kind == "terrain"
                ? #"{"name": "t", "kind": "terrain", "sources": ["\#(dem)"], "hillshade": true}"#
                : #"{"name": "i", "sources": ["\#(dem)"]}"#
            try #"{"name": "T", \#(output) "layers": [\#(layer)]}"#.write(toFile: manifest, atomically: true, encoding: .utf8)
            return try BuildManifest.load(path: manifest).options(output: fx.dir.file("m.mbtiles")).encoding.compressionLevel
        }
        #expect(try level("", kind: "terrain") == BuildOptions.terrainEffort.level)
        #expect(try level(#""output": {"effort": "balanced"},"#, kind: "terrain") == BuildEffort.balanced.level)
        #expect(try level("", kind: "imagery") == BuildOptions.defaultEffort.level)
        #expect(BuildOptions.terrainEffort.level < BuildOptions.defaultEffort.level)
    }
}
