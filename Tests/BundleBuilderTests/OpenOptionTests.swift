import Foundation
import Raster
import SourceReaders
import Testing
import TileGeometry
import TileStore
@testable import BundleBuilder
import TrailMapTestSupport

/// GDAL open options reach the driver (`--open-option`, a layer's `openOptions`): a GeoPDF
/// rasterized at twice its resolution, and an option the driver does not know refused.
@Suite(.computeThreads) struct OpenOptionTests {
    let fx = RealSourceFixture()

    func geoPDF() throws -> String {
        let src = try fx.geographic("pdf-src", box: RealSourceTests.box, size: 200, color: TestSources.terrain)
        let utm = try fx.projected(src, name: "pdf-utm", crs: "EPSG:32613", pixel: 500)
        let pdf = fx.dir.file("map.pdf")
        try GDALTools.translate(utm, pdf, ["-of", "PDF", "-co", "DPI=72"])
        return pdf
    }

    @Test func aGeoPDFIsRasterizedAtTheAskedResolution() throws {
        let pdf = try geoPDF()
        let plain = try RasterDataset(path: pdf).describe(options: ReadOptions())
        let fine = try RasterDataset(path: pdf, openOptions: ["DPI=144"]).describe(options: ReadOptions())
        #expect(
            fine.width == plain.width * 2 && fine.height == plain.height * 2,
            "\(plain.width)x\(plain.height) → \(fine.width)x\(fine.height)")
        #expect(fine.openOptions == ["DPI=144"])

        var o = fx.options([pdf], min: 7, max: 9, out: "pdf.mbtiles")
        o.read.openOptions = ["DPI=144"]
        let reader = try fx.build(o)
        let (lon, lat) = RealSourceTests.box.center
        let tile = try #require(try fx.tile(reader, WebMercator.tile(lon: lon, lat: lat, zoom: 9)))
        let reference = try #require(
            try fx.tile(
                fx.build(fx.options([pdf], min: 7, max: 9, out: "plain.mbtiles")),
                WebMercator.tile(lon: lon, lat: lat, zoom: 9)))
        #expect(RealSourceFixture.opaquePSNR(tile, reference) >= 25, "the same map, rasterized finer")
    }

    /// A value the driver does not take is only a GDAL warning, after which it uses its default:
    /// an error here, with GDAL's words.
    @Test(arguments: ["DPI=abc", "DPI=0", "BANDS=7"])
    func aValueTheDriverDoesNotTakeIsAnError(option: String) throws {
        let pdf = try geoPDF()
        var o = fx.options([pdf], min: 7, max: 8, out: "bad-value.mbtiles")
        o.read.openOptions = [option]
        #expect { try BundleBuilder(options: o).build() } throws: { error in
            "\(error)".contains(pdf) && "\(error)".contains("open option \(option):")
        }
        #expect(!fx.dir.contents.contains("bad-value.mbtiles"))
    }

    @Test func anOptionTheDriverDoesNotKnowIsAnError() throws {
        let pdf = try geoPDF()
        var o = fx.options([pdf], min: 7, max: 8, out: "bad.mbtiles")
        o.read.openOptions = ["DIP=300"]
        #expect { try BundleBuilder(options: o).build() } throws: { error in
            "\(error)".contains(pdf) && "\(error)".contains("does not support open option DIP")
        }
        #expect(!fx.dir.contents.contains("bad.mbtiles"))
    }
}
