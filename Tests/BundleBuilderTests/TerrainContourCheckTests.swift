import Foundation
import Logging
import Terrain
import Testing
import TileGeometry
@testable import BundleBuilder
import TrailMapTestSupport

/// The check of contour intervals before a terrain build: a zoom with more tiles than one
/// piece holds is checked in pieces, not skipped.
@Suite(.computeThreads) struct TerrainContourCheckTests {
    let fx = TerrainFixture()

    @Test(arguments: [1, 5, 12, 40, 1000])
    func piecesCoverTheRangeOnceWithinTheLimit(_ maxTiles: Int) {
        let range = TileRange(z: 12, minX: 837, maxX: 851, minY: 1541, maxY: 1549)
        var seen = [TileID: Int]()
        for piece in TerrainContourCheck.pieces(of: range, maxTiles: maxTiles) {
            #expect(piece.count <= maxTiles && piece.z == range.z)
            for t in piece { seen[t, default: 0] += 1 }
        }
        #expect(Set(seen.keys) == Set(range) && seen.values.allSatisfy { $0 == 1 })
    }

    /// The cone's z13 tiles at a 0.5 m interval: with pieces of 3 tiles (fewer than the zoom
    /// has) the check still names a z13 tile, the same one as read whole, and passes at 20 m.
    @Test func aZoomOfMoreTilesThanAPieceIsStillChecked() throws {
        let dem = try fx.cone()
        var layer = TerrainLayer(sources: [dem])
        layer.contours = ContourOptions(interval: 0.5)
        let sources = try TerrainSources.read(layer, logger: Logger(label: "test"))
        let bounds = try #require(sources.bounds.clippedToMercator)
        #expect(TileRange(bounds: bounds, zoom: 13).count > 3)
        func refused(maxTiles: Int) -> TileID? {
            var check = TerrainContourCheck(layer: layer, sources: sources)
            check.maxTiles = maxTiles
            do {
                try check.check(zooms: 13...13, bounds: bounds)
                return nil
            } catch {
                guard case let .terrain(.contourTile(tile, .tooManyLevels(count, limit, _))) = error, count > limit else {
                    Issue.record("\(error)")
                    return nil
                }
                return tile
            }
        }
        let whole = try #require(refused(maxTiles: TerrainContourCheck.maxTiles))
        let pieces = try #require(refused(maxTiles: 3))
        #expect(whole.z == 13 && pieces.z == 13)
        #expect(whole == pieces, "the first tile found, north-west first")
        layer.contours = ContourOptions(interval: 20)
        var fine = TerrainContourCheck(layer: layer, sources: sources)
        fine.maxTiles = 3
        try fine.check(zooms: 13...13, bounds: bounds)
    }
}
