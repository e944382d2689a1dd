import Foundation
import Testing
@testable import SourceReaders
import TrailMapTestSupport

/// Nodata values near the float extremes, and GDAL subdataset names.
@Suite(.computeThreads) struct NodataAndNamesTests {
    @Test func floatExtremeNodataMatchesBothEncodings() {
        // -3.40282e+38 in metadata: pixels written by gdalwarp hold Float(-3.40282e38), those of
        // most DEM tools hold -FLT_MAX; both are nodata.
        let rounded = FloatNodata(-3.40282e38)
        #expect(rounded.matches(Float(-3.40282e38)) && rounded.matches(-.greatestFiniteMagnitude))
        #expect(!rounded.matches(-3.0e38) && !rounded.matches(.greatestFiniteMagnitude))
        let plain = FloatNodata(-9999)
        #expect(plain.matches(-9999) && !plain.matches(-.greatestFiniteMagnitude))
        #expect(!FloatNodata(.nan).matches(.nan))
    }

    @Test func subdatasetNamesFindTheirFile() throws {
        let dir = TemporaryDirectory()
        let file = dir.file("a.gpkg")
        try Data("x".utf8).write(to: URL(fileURLWithPath: file))
        #expect(GDALFiles.subdataset("GPKG:\(file):t")?.file == file)
        #expect(GDALFiles.subdataset("NETCDF:\"\(file)\":v").map { $0.head + "|" + $0.file + "|" + $0.tail } == "NETCDF:\"|\(file)|\":v")
        // Fields before the file, quoted or not.
        #expect(GDALFiles.subdataset("GTIFF_DIR:off:123:\(file)")?.file == file)
        #expect(GDALFiles.subdataset("PDF:2:\(file)")?.file == file)
        #expect(GDALFiles.subdataset("HDF4_EOS:EOS_GRID:\"\(file)\":grid:field")?.tail == "\":grid:field")
        // Not subdataset names: a plain path, a missing container, a one-letter "driver".
        #expect(GDALFiles.subdataset(file) == nil && GDALFiles.subdataset("GPKG:\(dir.file("none.gpkg")):t") == nil)
        #expect(GDALFiles.subdataset("C:\(file)") == nil)
        // Resolving against a folder: a relative container joins it; an absolute one, or one
        // that cannot be found, stays as written.
        #expect(GDALFiles.resolve("GPKG:a.gpkg:t", relativeTo: dir.path) == "GPKG:\(file):t")
        #expect(GDALFiles.resolve("GPKG:\(file):t", relativeTo: "/elsewhere") == "GPKG:\(file):t")
        #expect(GDALFiles.resolve("NETCDF:\"\(file)\":v", relativeTo: "/elsewhere") == "NETCDF:\"\(file)\":v")
        #expect(GDALFiles.resolve("GPKG:missing.gpkg:t", relativeTo: "/elsewhere") == "GPKG:missing.gpkg:t")
        #expect(GDALFiles.resolve("sheet.tif", relativeTo: "/maps") == "/maps/sheet.tif")
    }
}
