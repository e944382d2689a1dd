import Foundation
import Testing
import TileGeometry
import TileStore
import TrailMapTestSupport

/// `trailmap --version` and the builder version a bundle records are the same number.
@Suite(.blockingThreads) struct VersionCLITests {
    @Test func versionFlagAndBundleBuilderAgree() throws {
        let dir = TemporaryDirectory()
        let png = try TestSources.write(
            in: dir, name: "v", width: 64, height: 64,
            bounds: GeoBounds(west: 7, south: 46, east: 8, north: 47), color: TestSources.terrain)
        let tif = dir.file("v.tif")
        try GDALTools.translate(png, tif, ["-a_srs", "EPSG:4326"])
        let out = dir.file("v.mbtiles")
        let build = try CLIRunner.run(["build", "--source", tif, "--name", "V", "--minzoom", "3", "--maxzoom", "4", "--out", out, "--quiet"]
        )
        #expect(build.status == 0, "\(build.stderr)")
        let version = try CLIRunner.run(["--version"])
        #expect(version.status == 0)
        let number = version.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(number.split(separator: ".").count == 3 && number.allSatisfy { $0.isNumber || $0 == "." }, "\(number)")
        let builder = try BundleReader(path: out).metadataPairs()["trailmap:builder"]
        #expect(builder == "trailmap-builder \(number)", "\(String(describing: builder)) vs \(number)")
    }
}
