import Foundation
import Testing
import TileGeometry
import TrailMapTestSupport

/// `--json` on build and verify, in the house style (no `\/`), and their exit statuses.
@Suite(.blockingThreads) struct JSONOutputCLITests {
    @Test func buildAndVerifyPrintJSON() throws {
        let dir = TemporaryDirectory()
        let png = try TestSources.write(
            in: dir, name: "j", width: 64, height: 64,
            bounds: GeoBounds(west: 7, south: 46, east: 8, north: 47), color: TestSources.terrain)
        let tif = dir.file("j.tif")
        try GDALTools.translate(png, tif, ["-a_srs", "EPSG:4326"])
        let out = dir.file("j.mbtiles")
        let build = try CLIRunner.run(["build", "--source", tif, "--name", "J", "--minzoom", "3", "--maxzoom", "5", "--out", out, "--json"])
        #expect(build.status == 0, "\(build.stderr)")
        #expect(!build.stdout.contains("\\/"), "\(build.stdout)")
        let summary = try #require(try JSONSerialization.jsonObject(with: Data(build.stdout.utf8)) as? [String: Any], "\(build.stdout)")
        #expect(summary["output"] as? String == out)
        #expect(summary["minzoom"] as? Int == 3 && summary["maxzoom"] as? Int == 5)
        #expect((summary["tilesStored"] as? Int ?? 0) > 0 && (summary["tileBytes"] as? Int ?? 0) > 0, "\(summary)")

        let verify = try CLIRunner.run(["bundle", "verify", out, "--json"])
        #expect(verify.status == 0 && !verify.stdout.contains("\\/"), "\(verify.stdout)\(verify.stderr)")
        let ok = try #require(try JSONSerialization.jsonObject(with: Data(verify.stdout.utf8)) as? [String: Any])
        #expect(ok["ok"] as? Bool == true && ok["file"] as? String == out && (ok["problems"] as? [Any])?.isEmpty == true)
        #expect(ok["tiles"] as? Int == summary["tilesStored"] as? Int, "\(ok) \(summary)")

        _ = try CLIRunner.run([out, "DELETE FROM metadata WHERE name = 'format'"], executable: "/usr/bin/sqlite3")
        let bad = try CLIRunner.run(["bundle", "verify", out, "--json"])
        #expect(bad.status == 1, "\(bad.status) \(bad.stderr)")
        let problems = try #require(try JSONSerialization.jsonObject(with: Data(bad.stdout.utf8)) as? [String: Any], "\(bad.stdout)")
        #expect(problems["ok"] as? Bool == false && !((problems["problems"] as? [String]) ?? []).isEmpty, "\(problems)")
    }
}
