import Foundation
import Raster
import SourceReaders
import Testing
import TileGeometry
@testable import BundleBuilder
import TrailMapTestSupport

/// Bad real sources: a clear error naming the file, nothing written.
@Suite(.computeThreads) struct RealSourceRejectionTests {
    let fx = RealSourceFixture()

    enum Bad: String, CaseIterable {
        case noGeoreference, noCRS, unknownCRS, notARaster, truncated, fiveBands, outsideMercator, scaleOrder, nodataCount,
            collinearControlPoints, tooFewControlPoints, localCRS, containerOfRasters
    }

    @Test(arguments: Bad.allCases)
    func rejects(_ bad: Bad) throws {
        let good = try fx.geographic("good", box: RealSourceTests.box, size: 64, color: TestSources.terrain)
        var o = fx.options([good], min: 5, max: 8)
        var expected = [String]()
        // The structured case the CLI words (with its flags) from, where one is expected.
        var matches: (BuildError) -> Bool = { _ in true }
        switch bad {
        case .noGeoreference:
            let png = try TestSources.write(
                in: fx.dir, name: "plain", width: 32, height: 32, bounds: RealSourceTests.box,
                color: TestSources.terrain)
            try FileManager.default.removeItem(atPath: fx.dir.file("plain.pgw"))
            let tif = fx.dir.file("plain.tif")
            try GDALTools.translate(png, tif)
            o.sources = [tif]
            expected = [tif, "no georeference"]
        case .noCRS:
            let png = try TestSources.write(
                in: fx.dir, name: "bare", width: 32, height: 32, bounds: RealSourceTests.box,
                color: TestSources.terrain)
            try FileManager.default.removeItem(atPath: fx.dir.file("bare.pgw"))
            let tif = fx.dir.file("nocrs.tif")
            try GDALTools.translate(png, tif, ["-a_ullr", "500000", "4400000", "600000", "4300000"])
            o.sources = [tif]
            expected = [tif, "declares no coordinate reference system"]
            matches = { if case .source(.noCRS(tif)) = $0 { true } else { false } }
        case .unknownCRS:
            for input in ["EPSG:999999", "+proj=nonsense", "not a crs"] {
                do {
                    _ = try SpatialReference(userInput: input)
                    Issue.record("\(input) accepted")
                } catch {
                    #expect("\(error)".contains(input))
                }
            }
            return
        case .notARaster:
            let text = fx.dir.file("notes.tif")
            try "just some text, no TIFF".write(toFile: text, atomically: true, encoding: .utf8)
            o.sources = [good, text]
            expected = [text, "GDAL cannot open"]
        case .truncated:
            let big = try fx.geographic("big", box: RealSourceTests.box, size: 600, color: TestSources.terrain)
            let tiled = fx.dir.file("tiled.tif")
            try GDALTools.translate(big, tiled, ["-co", "TILED=YES", "-co", "COMPRESS=DEFLATE"])
            let data = try Data(contentsOf: URL(fileURLWithPath: tiled))
            try data.prefix(data.count * 6 / 10).write(to: URL(fileURLWithPath: tiled))
            o.sources = [tiled]
            o.minZoom = 9
            o.maxZoom = 9
            expected = [tiled]
        case .fiveBands:
            let five = fx.dir.file("five.tif")
            try GDALTools.translate(good, five, ["-b", "1", "-b", "2", "-b", "3", "-b", "1", "-b", "2"])
            o.sources = [five]
            expected = [five, "band layout"]
        case .outsideMercator:
            let polar = try fx.geographic(
                "polar", box: GeoBounds(west: 0, south: 86, east: 10, north: 89), size: 32,
                color: TestSources.terrain)
            o.sources = [polar]
            expected = [polar, "Mercator"]
        case .scaleOrder:
            o.read.scale = (100, 100)
            expected = ["100.0,100.0", "its minimum must be less than its maximum"]
            matches = { if case .invalidOption(.scale(100, 100)) = $0 { true } else { false } }
        case .nodataCount:
            o.read.nodata = [0, 0]
            expected = [good, "2 nodata values given"]
            matches = { if case .source(.nodataCount(good, 2, _)) = $0 { true } else { false } }
        case .collinearControlPoints:
            // Three points on one line fit no plane.
            let tif = fx.dir.file("line.tif")
            try GDALTools.translate(
                good, tif,
                [
                    "-a_srs", "EPSG:4326", "-gcp", "0", "0", "-106", "40", "-gcp", "10", "10", "-105.9", "39.9",
                    "-gcp", "20", "20", "-105.8", "39.8"
                ])
            o.sources = [tif]
            expected = [tif, "cannot georeference it"]
        case .localCRS:
            // A CAD-style engineering CRS: metres, but no tie to the Earth.
            let tif = fx.dir.file("local.tif")
            try GDALTools.translate(good, tif, ["-a_srs", "LOCAL_CS[\"site grid\",UNIT[\"metre\",1]]", "-a_ullr", "0", "1000", "1000", "0"])
            o.sources = [tif]
            expected = [tif, "local (engineering)", "give the real one"]
            matches = { if case .source(.localCRS(tif, _)) = $0 { true } else { false } }
        case .containerOfRasters:
            // A GeoPackage of two raster tables: GDAL opens it with no bands, the tables as subdatasets.
            let gpkg = fx.dir.file("two.gpkg")
            try GDALTools.translate(good, gpkg, ["-of", "GPKG", "-co", "RASTER_TABLE=a"])
            try GDALTools.translate(good, gpkg, ["-of", "GPKG", "-co", "RASTER_TABLE=b", "-co", "APPEND_SUBDATASET=YES"])
            o.sources = [gpkg]
            expected = [gpkg, "holds 2 raster(s)", "GPKG:\(gpkg):a"]
            matches = { if case let .source(.containerOfRasters(path, names)) = $0 { path == gpkg && names.count == 2 } else { false } }
        case .tooFewControlPoints:
            let tif = fx.dir.file("four.tif")
            try GDALTools.translate(
                good, tif,
                [
                    "-a_srs", "EPSG:4326", "-gcp", "0", "0", "-106", "40", "-gcp", "64", "0", "-105", "40",
                    "-gcp", "0", "64", "-106", "39", "-gcp", "64", "64", "-105", "39"
                ])
            o.read.gcpTransform = .order3
            o.sources = [tif]
            expected = [tif, "4 point(s)", "order3", "at least 10"]
            matches = { if case .source(.tooFewGroundControlPoints(tif, 4, .order3)) = $0 { true } else { false } }
        }
        var message = ""
        #expect { try BundleBuilder(options: o).build() } throws: { error in
            message = "\(error)"
            return (error as? BuildError).map(matches) ?? false
        }
        for part in expected { #expect(message.contains(part), "\(bad): \(message)") }
        #expect(!fx.dir.contents.contains { $0.hasSuffix(".mbtiles") || $0.hasSuffix(".building") }, "nothing written")
    }
}
