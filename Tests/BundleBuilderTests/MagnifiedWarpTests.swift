import Foundation
import Raster
import Testing
import TileGeometry
@testable import BundleBuilder
import TrailMapTestSupport

/// Where a tile magnifies its source (a coarse grid near a pole, at a low zoom), the warper's
/// interpolation error is bounded in tile pixels too, as gdalwarp's is: 0.125 source pixels
/// there spanned two tile pixels, and the top rows of the z3 tiles of a 1° grid ending at 80°N
/// started two rows before gdalwarp's.
@Suite(.computeThreads) struct MagnifiedWarpTests {
    let fx = RealSourceFixture()

    @Test func aMagnifiedGridNearAPoleLinesUpWithGDALWarp() throws {
        // 1° × 0.89° pixels, longitudes 0-360°, latitudes 80°N-80°S, each pixel its own shade.
        let png = try TestSources.write(in: fx.dir, name: "grid-src", width: 360, height: 180, bounds: RealSourceTests.box) { c, r in
            (UInt8(r % 256), UInt8((c * 7) % 256), UInt8((r * 3 + c) % 256), 255)
        }
        let src = fx.dir.file("grid.tif")
        try GDALTools.translate(png, src, ["-a_srs", "EPSG:4326", "-a_ullr", "0", "80", "360", "-80"])
        let reader = try fx.build(fx.options([src], min: 3, max: 3, out: "grid.mbtiles", resampling: .nearest))
        var extra = 0, differing = 0, compared = 0
        for x in [1, 2, 5, 6] {
            let tile = try #require(TileID(z: 3, x: x, y: 0))
            let ours = try #require(try fx.tile(reader, tile))
            let theirs = try fx.reference(tile, src, resampling: "near")
            for p in stride(from: 0, to: ours.pixels.count, by: 4) {
                if ours.pixels[p + 3] == 255 && theirs.pixels[p + 3] == 0 { extra += 1 }
                guard ours.pixels[p + 3] == 255 && theirs.pixels[p + 3] == 255 else { continue }
                compared += 1
                if (0..<3).contains(where: { ours.pixels[p + $0] != theirs.pixels[p + $0] }) { differing += 1 }
            }
        }
        #expect(compared > 4 * 256 * 20, "the tiles and gdalwarp's overlap: \(compared) pixels")
        // Ties at a pixel's exact edge may fall either way: at most one row in four tiles.
        #expect(extra <= 256, "\(extra) pixels drawn above gdalwarp's top row")
        #expect(Double(differing) / Double(compared) < 0.02, "\(differing) of \(compared) pixels differ from gdalwarp's")
    }
}
