import Foundation
import Testing
import TileGeometry
import TileStore
import TrailMapTestSupport

/// `build --bounds W,S,E,N` cuts the region: a source partly outside is clipped, a source wholly
/// outside is skipped with one line saying so.
@Suite(.blockingThreads) struct BuildBoundsCLITests {
    @Test func boundsClipAndSkip() throws {
        let dir = TemporaryDirectory()
        func tif(_ name: String, _ b: GeoBounds) throws -> String {
            let png = try TestSources.write(in: dir, name: name, width: 80, height: 80, bounds: b, color: TestSources.terrain)
            try GDALTools.translate(png, dir.file("\(name).tif"), ["-a_srs", "EPSG:4326"])
            return dir.file("\(name).tif")
        }
        let partly = try tif("partly", GeoBounds(west: -106, south: 38, east: -104, north: 40))
        let outside = try tif("outside", GeoBounds(west: 10, south: 45, east: 11, north: 46))
        let out = dir.file("cut.mbtiles")
        let r = try CLIRunner.run([
            "build", "--source", partly, "--source", outside, "--name", "Cut", "--minzoom", "4", "--maxzoom", "6",
            "--bounds", "-105.5,38.5,-104.5,39.5", "--out", out
        ])
        #expect(r.status == 0, "\(r.stderr)")
        let skipLines = r.stderr.split(separator: "\n").filter { $0.contains("skipped") }
        #expect(skipLines.count == 1 && skipLines[0].contains("outside.tif") && !skipLines[0].contains("partly.tif"), "\(r.stderr)")
        let meta = try BundleReader(path: out).metadataPairs()
        let b = try #require(meta["bounds"].flatMap(GeoBounds.init(parsing:)), "\(meta)")
        #expect(b.west >= -105.5 - 1e-6 && b.east <= -104.5 + 1e-6 && b.south >= 38.5 - 1e-6 && b.north <= 39.5 + 1e-6, "\(b)")
        #expect(try CLIRunner.run(["bundle", "verify", out]).status == 0)
        // Every source outside: a failure that says so, nothing written.
        let none = try CLIRunner.run([
            "build", "--source", outside, "--name", "None", "--minzoom", "4", "--maxzoom", "5",
            "--bounds", "-105.5,38.5,-104.5,39.5", "--out", dir.file("none.mbtiles")
        ])
        #expect(none.status == 1 && none.stderr.contains("outside"), "\(none.status) \(none.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.file("none.mbtiles")))
    }
}
