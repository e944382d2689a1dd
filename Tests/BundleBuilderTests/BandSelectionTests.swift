import Foundation
import Raster
import SourceReaders
import Testing
import TileGeometry
import TileStore
@testable import BundleBuilder
import TrailMapTestSupport

/// Which bands are read: a 4-band red, green, blue, near-infrared image (as NAIP aerial imagery
/// comes) reads as RGB, not as RGBA with the infrared as alpha; `--bands` picks and orders bands.
@Suite(.computeThreads) struct BandSelectionTests {
    let fx = RealSourceFixture()

    /// An RGB GeoTIFF and copies with a fourth and fifth band of another colour interpretation:
    /// band 4 (undefined, as NAIP's infrared) is 0 on the western half.
    func rasters() throws -> (rgb: String, four: String, five: String) {
        let rgb = try fx.geographic("rgb", box: RealSourceTests.box, size: 256, color: TestSources.terrain)
        let dark = try fx.geographic("dark", box: RealSourceTests.box, size: 256) { c, _ in c < 128 ? (0, 0, 0, 255) : (200, 200, 200, 255)
        }
        var planes = [String]()
        for k in 1...3 {
            planes.append(fx.dir.file("band\(k).tif"))
            try GDALTools.translate(rgb, planes[k - 1], ["-b", "\(k)"])
        }
        let nir = fx.dir.file("nir.tif")
        try GDALTools.translate(dark, nir, ["-b", "1"])
        let four = fx.dir.file("naip.vrt")
        try GDALTools.run("gdalbuildvrt", ["-q", "-separate", four] + planes + [nir])
        let tif4 = fx.dir.file("naip.tif"), tif5 = fx.dir.file("five.tif")
        try GDALTools.translate(four, tif4, ["-co", "PHOTOMETRIC=RGB", "-colorinterp_4", "undefined"])
        try GDALTools.translate(four, tif5, ["-b", "1", "-b", "2", "-b", "3", "-b", "4", "-b", "4"])
        return (rgb, tif4, tif5)
    }

    func tiles(_ sources: [String], bands: [Int]? = nil, out: String) throws -> [TileID: RGBAImage] {
        var o = fx.options(sources, min: 7, max: 9, out: out)
        o.read.bands = bands
        let reader = try fx.build(o)
        return Dictionary(uniqueKeysWithValues: try fx.allTiles(reader, zooms: 7...9, bounds: RealSourceTests.box))
    }

    @Test func aNearInfraredFourthBandIsNotAlpha() throws {
        let (rgb, four, _) = try rasters()
        let d = try RasterDataset(path: four).describe(options: ReadOptions())
        #expect(d.layout == .rgb && d.bands == [1, 2, 3], "\(d.layout) \(d.bands)")
        let expected = try tiles([rgb], out: "rgb.mbtiles")
        #expect(!expected.isEmpty)
        #expect(try tiles([four], out: "four.mbtiles") == expected, "the same tiles as the RGB raster")
    }

    @Test func bandsArePickedAndOrdered() throws {
        let (rgb, _, five) = try rasters()
        let normal = try tiles([rgb], out: "rgb.mbtiles")
        let swapped = try tiles([rgb], bands: [3, 2, 1], out: "bgr.mbtiles")
        #expect(Set(swapped.keys) == Set(normal.keys))
        var compared = 0
        for (t, image) in normal {
            let other = try #require(swapped[t])
            for p in stride(from: 0, to: image.pixels.count, by: 4) where image.pixels[p + 3] == 255 {
                #expect(other.pixels[p] == image.pixels[p + 2] && other.pixels[p + 2] == image.pixels[p], "tile \(t): red and blue swapped")
                compared += 1
                if compared > 50_000 { break }
            }
        }
        #expect(compared > 0)
        // Five bands need a choice; given one, they read as the RGB raster does.
        #expect(try tiles([five], bands: [1, 2, 3], out: "five.mbtiles") == normal)
        #expect { try BundleBuilder(options: fx.options([five], min: 7, max: 9, out: "x.mbtiles")).build() } throws: { error in
            guard case let .source(.tooManyBands(path, count, _))? = error as? BuildError else { return false }
            return path == five && count == 5 && "\(error)".contains(five) && "\(error)".contains("choose the ones to read")
        }
        var o = fx.options([rgb], min: 7, max: 9, out: "y.mbtiles")
        o.read.bands = [1, 2, 9]
        #expect { try BundleBuilder(options: o).build() } throws: { error in
            guard case let .source(.bandChoiceOutOfRange(_, band, bandCount, _))? = error as? BuildError else { return false }
            return band == 9 && bandCount == 3 && "\(error)".contains("band 9 is not one of its bands 1-3")
        }
    }

    /// Leaving out an alpha band with --bands keeps the transparency it gave (through GDAL's mask).
    /// A paletted map warped with an alpha band (`gdalwarp -dstalpha`) reads as palette colours
    /// with that alpha: the tiles of the same warp with a nodata index. It read as gray indices.
    @Test func paletteWithAnAlphaBand() throws {
        let png = try TestSources.write(in: fx.dir, name: "map", width: 200, height: 200, bounds: RealSourceTests.box) { c, r in
            (c + r) % 9 == 0 ? (140, 100, 50, 255) : (r % 40 < 20 ? (255, 255, 255, 255) : (200, 230, 190, 255))
        }
        let paletted = fx.dir.file("map.tif")
        try GDALTools.translate(png, paletted, ["-a_srs", "EPSG:4326"])
        let alpha = fx.dir.file("map-alpha.tif"), nodata = fx.dir.file("map-nodata.tif")
        let warp = ["-t_srs", "EPSG:32613", "-tr", "500", "500", "-r", "near"]
        try GDALTools.warp(paletted, alpha, warp + ["-dstalpha"])
        try GDALTools.warp(paletted, nodata, warp + ["-dstnodata", "255"])
        let d = try RasterDataset(path: alpha).describe(options: ReadOptions())
        #expect(d.layout == .paletteAlpha && d.bands == [1, 2], "\(d.layout) \(d.bands)")
        #expect(try RasterDataset(path: alpha).describe(options: ReadOptions(bands: [1, 2])).layout == .paletteAlpha)
        let a = try tiles([alpha], out: "alpha.mbtiles"), b = try tiles([nodata], out: "nodata.mbtiles")
        #expect(!a.isEmpty && Set(a.keys) == Set(b.keys))
        for (t, image) in b { #expect(a[t] == image, "tile \(t)") }
        let coloured = a.values.contains { im in stride(from: 0, to: im.pixels.count, by: 4).contains { im.pixels[$0 + 1] == 230 } }
        #expect(coloured, "palette colours, not indices as gray")
    }

    @Test func droppingTheAlphaBandKeepsTheTransparency() throws {
        let src = try fx.geographic("geo", box: RealSourceTests.box, size: 200, color: TestSources.terrain)
        let sheet = try fx.projected(src, name: "alpha", crs: "EPSG:32613", pixel: 500, collar: .alpha)
        let all = try tiles([sheet], out: "rgba.mbtiles")
        let rgb = try tiles([sheet], bands: [1, 2, 3], out: "rgb-of-rgba.mbtiles")
        #expect(Set(rgb.keys) == Set(all.keys))
        for (t, image) in all {
            let other = try #require(rgb[t])
            #expect(
                stride(from: 3, to: image.pixels.count, by: 4).allSatisfy { image.pixels[$0] == other.pixels[$0] },
                "tile \(t): the same alpha")
        }
        #expect(
            all.values.contains { image in stride(from: 3, to: image.pixels.count, by: 4).contains { image.pixels[$0] == 0 } },
            "the collar is transparent")
    }
}
