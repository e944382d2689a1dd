import Foundation
import Raster
import Terrain
import Testing
import TileGeometry
import TileStore
@testable import BundleBuilder
import TrailMapTestSupport

/// Hillshade tiles against `gdaldem hillshade` run on the same tile's DEM warped by gdalwarp
/// (with `-s` for Web Mercator at the tile's latitude), and against the shade a plane of known
/// slope must have.
@Suite(.computeThreads) struct TerrainHillshadeTests {
    let fx = TerrainFixture()

    /// The cone's tiles at a zoom coarser than the DEM (averaged) and finer (bilinear), in each
    /// of gdaldem's variants: PSNR at least 35 dB over the pixels both shade.
    @Test(arguments: [(HillshadeOptions.Mode.single, [String]()), (.multidirectional, ["-multidirectional"]), (.combined, ["-combined"])])
    func coneTilesMatchGdaldemOnTheWarpedDEM(_ mode: HillshadeOptions.Mode, _ flags: [String]) throws {
        let dem = try fx.cone()
        var layer = TerrainLayer(sources: [dem])
        layer.hillshade = HillshadeOptions(mode: mode)
        let reader = try fx.build(fx.options(layer, zooms: 11...13, out: "cone-\(mode).mbtiles"))
        let centre = (lon: -105.515, lat: 39.983)
        for (z, resampling) in [(11, "average"), (13, "bilinear")] {
            let t = WebMercator.tile(lon: centre.lon, lat: centre.lat, zoom: z)
            let ours = try #require(try fx.tile(reader, t), "tile \(t)")
            let theirs = try fx.gdaldemHillshade(dem, t, resampling: resampling, extra: flags)
            let (psnr, compared) = TerrainFixture.psnr(ours, theirs)
            #expect(compared > 256 * 64, "zoom \(z): \(compared) pixels compared")
            #expect(psnr >= 35, "zoom \(z) \(mode): PSNR \(psnr) dB against gdaldem")
        }
    }

    /// Where gdalwarp puts no elevation (outside the DEM, its void), the tile is transparent; where
    /// it does, the tile is opaque.
    @Test func voidsAndOutsideTheDEMAreTransparent() throws {
        let dem = try fx.cone()
        var layer = TerrainLayer(sources: [dem])
        layer.hillshade = HillshadeOptions()
        let reader = try fx.build(fx.options(layer, zooms: 12...12, out: "edges.mbtiles"))
        var transparent = 0, checked = 0
        for t in TileRange(bounds: GeoBounds(west: -105.59, south: 39.93, east: -105.44, north: 40.04), zoom: 12) {
            guard let ours = try fx.tile(reader, t) else { continue }
            let warped = try fx.warped(dem, t, border: 0, resampling: "bilinear")
            let values = try fx.floats(warped)
            for i in values.indices {
                let void = values[i] == -9999
                // A pixel on the very edge of the DEM may fall either way between two warps.
                let x = i % 256, y = i / 256
                if x == 0 || y == 0 || x == 255 || y == 255 { continue }
                let neighbours = [i - 1, i + 1, i - 256, i + 256].map { values[$0] == -9999 }
                if neighbours.contains(!void) { continue }
                checked += 1
                #expect((ours.pixels[i * 4 + 3] == 0) == void, "tile \(t) pixel \(x),\(y): void \(void), alpha \(ours.pixels[i * 4 + 3])")
                if void { transparent += 1 }
            }
        }
        #expect(checked > 10_000 && transparent > 1000, "\(checked) pixels checked, \(transparent) voids")
    }

    /// A plane rising 20 m in 100 m to the east (in UTM, so its slope is in ground metres): every
    /// pixel has the textbook shade of that slope and aspect, at a zoom coarser than the DEM and
    /// at one finer, which only holds when each row's Web Mercator pixel is scaled to the ground.
    @Test func aPlaneOfKnownSlopeHasItsTextbookShade() throws {
        let dem = try fx.dem("plane", size: 200, cell: 30, x0: TerrainFixture.utm.x0, y0: TerrainFixture.utm.y0, srs: "EPSG:32613") {
            x, _ in
            1000 + 0.2 * (x - TerrainFixture.utm.x0)
        }
        var layer = TerrainLayer(sources: [dem])
        layer.hillshade = HillshadeOptions()
        let reader = try fx.build(fx.options(layer, zooms: 11...14, out: "plane.mbtiles"))
        // Light from 315° at 45°; the slope atan(0.2) faces west (270°).
        let rad = Double.pi / 180, slope = atan(0.2), zenith = 45 * rad
        let expected = 1 + 254 * (cos(zenith) * cos(slope) + sin(zenith) * sin(slope) * cos((315 - 270) * rad))
        for z in [11, 14] {
            let t = WebMercator.tile(lon: -105.55, lat: 39.95, zoom: z)
            let ours = try #require(try fx.tile(reader, t))
            var compared = 0
            for y in 3..<253 {
                for x in 3..<253 {
                    let i = (y * 256 + x) * 4
                    // Only pixels a few pixels inside the plane: an edge pixel averages the part
                    // of it the DEM covers, whose middle is not the pixel's.
                    guard [-3, 0, 3].allSatisfy({ ours.pixels[i + $0 * 4 + 3] == 255 && ours.pixels[i + $0 * 1024 + 3] == 255 }) else {
                        continue
                    }
                    compared += 1
                    #expect(
                        abs(Double(ours.pixels[i]) - expected) <= 1.5, "zoom \(z) pixel \(x),\(y): \(ours.pixels[i]), expected \(expected)")
                    if abs(Double(ours.pixels[i]) - expected) > 1.5 { return }
                }
            }
            #expect(compared > 1000, "zoom \(z): \(compared) pixels")
        }
    }
}
