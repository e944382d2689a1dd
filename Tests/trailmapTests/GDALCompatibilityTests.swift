import Foundation
import Testing
import TileGeometry
import TrailMapTestSupport

/// GDAL must open TrailMap bundles (CI installs gdal-bin; the test is required when CI is set).
@Suite struct GDALCompatibilityTests {
    static let gdalinfo = ["/usr/bin/gdalinfo", "/usr/local/bin/gdalinfo"].first { FileManager.default.isExecutableFile(atPath: $0) }
    static let required = ProcessInfo.processInfo.environment["CI"] != nil

    @Test(.enabled(if: gdalinfo != nil || required, "gdalinfo is not installed"))
    func gdalReadsABuiltBundle() throws {
        let gdalinfo = try #require(Self.gdalinfo, "CI must install gdal-bin")
        let dir = TemporaryDirectory()
        let box = GeoBounds(west: -110, south: 36, east: -101, north: 42)
        let src = try TestSources.write(in: dir, name: "s", width: 180, height: 120, bounds: box, color: TestSources.terrain)
        let out = dir.file("g.mbtiles")
        let build = try CLIRunner.run(["build", "--source", src, "--name", "G", "--minzoom", "3", "--maxzoom", "7",
                                       "--out", out, "--quiet"])
        #expect(build.status == 0, "\(build.stderr)")
        let info = try CLIRunner.run([out], executable: gdalinfo)
        #expect(info.status == 0, "\(info.stderr)")
        #expect(info.stdout.contains("Driver: MBTiles/MBTiles"))
        // Size at maxzoom 7 from the bounds: 9 degrees of 360 over 2^7 * 256 pixels.
        let world = Double(256 << 7)
        let expectedWidth = 9.0 / 360 * world
        let m = box.mercator
        let expectedHeight = (m.maxY - m.minY) / (2 * WebMercator.originShift) * world
        let size = try #require(info.stdout.split(separator: "\n").first { $0.hasPrefix("Size is") })
        let numbers = size.dropFirst("Size is ".count).split(separator: ",").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
        #expect(numbers.count == 2)
        #expect(abs(numbers[0] - expectedWidth) <= 2 && abs(numbers[1] - expectedHeight) <= 2, "\(size)")
        let upperLeft = try #require(info.stdout.split(separator: "\n").first { $0.hasPrefix("Upper Left") })
        let pixel = 2 * WebMercator.originShift / world
        let coords = upperLeft.split(separator: "(")[1].split(separator: ")")[0].split(separator: ",")
            .compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
        #expect(abs(coords[0] - m.minX) < 2 * pixel && abs(coords[1] - m.maxY) < 2 * pixel, "\(upperLeft)")
        #expect(info.stdout.contains("Band 4"), "RGBA bands")
    }
}
