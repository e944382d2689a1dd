import Foundation
import SourceReaders
import Testing
import TileGeometry
import TrailMapTestSupport

/// A GeoPDF page copied into a GeoTIFF holds the pixels gdal_translate draws for it, whichever
/// way GDAL's PDF driver serves the page: in single rows, or in 1024-pixel blocks for a page of
/// more than 8192² pixels (which the copy reads all bands at once; band by band it drew every
/// block once per band and a 10000×8000 page took minutes).
@Suite(.computeThreads) struct PageCopyTests {
    let dir = TemporaryDirectory()

    @Test(arguments: [("DPI=144", "Block=800x1"), ("DPI=1500", "Block=1024x1024")])
    func theCopyHoldsThePagesPixels(dpi: String, blocks: String) throws {
        let png = try TestSources.write(
            in: dir, name: "page-src", width: 400, height: 400, bounds: RasterDatasetTests.box,
            color: TestPatterns.checkerboard(cell: 7))
        let tif = dir.file("page.tif")
        try GDALTools.translate(png, tif, ["-a_srs", "EPSG:4326"])
        let pdf = dir.file("page.pdf")
        try GDALTools.translate(tif, pdf, ["-of", "PDF", "-co", "DPI=72"])
        #expect(try GDALTools.run("gdalinfo", ["-oo", dpi, pdf]).contains(blocks), "GDAL serves the page in \(blocks)")

        let copy = dir.file("copy.tif")
        try RasterDataset(path: pdf, openOptions: [dpi]).copyToGeoTIFF(copy)
        let reference = dir.file("reference.tif")
        try GDALTools.translate(pdf, reference, ["-oo", dpi])
        let sums = try [copy, reference].map { path in
            try GDALTools.run("gdalinfo", ["-checksum", path]).split(separator: "\n").filter { $0.contains("Checksum=") }
        }
        #expect(sums[0].count == 3 && sums[0] == sums[1], "\(sums)")
    }
}
