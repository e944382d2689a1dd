import Foundation
import Logging
import Raster
import SourceReaders
import Testing
import TileGeometry
import TileStore
@testable import BundleBuilder
import TrailMapTestSupport

/// A GeoPDF's page is drawn once for the whole build (`RenderedPage`), not once per rendering
/// thread, and the tiles are those of the same page converted by gdal_translate.
@Suite(.computeThreads) struct GeoPDFDrawingTests {
    let fx = RealSourceFixture()

    @Test func aGeoPDFPageIsDrawnOnceForEveryThread() throws {
        let dpi = "DPI=144"
        let src = try fx.geographic("pdf-src", box: RealSourceTests.box, size: 200, color: TestSources.terrain)
        let utm = try fx.projected(src, name: "pdf-utm", crs: "EPSG:32613", pixel: 500)
        let pdf = fx.dir.file("map.pdf")
        try GDALTools.translate(utm, pdf, ["-of", "PDF", "-co", "DPI=72"])
        // The page as GDAL draws it, at the resolution the build asks for, as a GeoTIFF.
        let drawn = fx.dir.file("drawn.tif")
        try GDALTools.translate(pdf, drawn, ["-oo", dpi])

        let scratch = fx.dir.file("scratch")
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        var o = fx.options([pdf], min: 6, max: 9, out: "pdf.mbtiles")
        o.read.openOptions = [dpi]
        o.threads = 3
        o.scratchDirectory = scratch
        let log = CapturedLog()
        _ = try BundleBuilder(options: o, logger: Logger(label: "test") { _ in log }).build()
        let drawings = log.lines.filter { $0.message.hasPrefix("drawing \(pdf)") }
        #expect(drawings.count == 1, "the page is drawn once, not once per thread: \(log.lines.map(\.message))")
        let left = try FileManager.default.contentsOfDirectory(atPath: scratch)
        #expect(left.isEmpty, "the drawn copy leaves nothing in the scratch folder: \(left)")

        let fromPDF = try fx.allTiles(try BundleReader(path: o.output), zooms: 6...9, bounds: RealSourceTests.box)
        let fromTIFF = try fx.allTiles(
            try fx.build(fx.options([drawn], min: 6, max: 9, out: "tif.mbtiles")),
            zooms: 6...9, bounds: RealSourceTests.box)
        #expect(fromPDF.count > 4 && fromPDF.map(\.0) == fromTIFF.map(\.0), "\(fromPDF.count) and \(fromTIFF.count) tiles")
        for ((t, a), (_, b)) in zip(fromPDF, fromTIFF) {
            #expect(a.pixels == b.pixels, "tile \(t): the PDF's tile differs from its gdal_translate copy's")
        }
    }

    @Test func aPageThatCannotBeDrawnFailsTheBuildNamingIt() throws {
        let src = try fx.geographic("pdf-src", box: RealSourceTests.box, size: 200, color: TestSources.terrain)
        let pdf = fx.dir.file("map.pdf")
        try GDALTools.translate(src, pdf, ["-of", "PDF", "-co", "DPI=72"])
        var o = fx.options([pdf], min: 6, max: 8, out: "pdf.mbtiles")
        // A scratch folder that does not exist: the copy cannot be written.
        o.scratchDirectory = fx.dir.file("no-such-folder")
        #expect { try BundleBuilder(options: o).build() } throws: { error in
            "\(error)".contains(pdf) && "\(error)".contains("no-such-folder")
        }
        #expect(!fx.dir.contents.contains("pdf.mbtiles"))
    }
}

/// The progress line says which pages are being drawn while tiles wait for them.
@Suite(.computeThreads) struct DrawingProgressTests {
    @Test func theProgressLineNamesThePagesBeingDrawn() {
        var p = BuildProgress(phase: .rendering, done: 0, total: 40, stored: 0, elapsed: 12)
        #expect(p.line == "tiles 0/40 (0.0%), 0 tiles/s, 0 stored, ETA --:--")
        p.drawing = ["/maps/a.pdf", "/maps/b.pdf"]
        #expect(p.line.hasSuffix("ETA --:--, drawing a.pdf, b.pdf"), "\(p.line)")
        let drawings = RenderedPage.Drawings()
        drawings.begin("/maps/a.pdf")
        drawings.begin("/maps/b.pdf")
        drawings.end("/maps/a.pdf")
        #expect(drawings.current == ["/maps/b.pdf"])
    }
}
