import Foundation
import Testing
import TileGeometry
import TileStore
import TrailMapTestSupport

@Suite(.serialized, .blockingThreads) struct BuildCommandTests {
    let dir = TemporaryDirectory()
    static let box = GeoBounds(west: -110, south: 36, east: -101, north: 42)

    func source(_ name: String = "terrain", width: Int = 240, height: Int = 160) throws -> String {
        try TestSources.write(in: dir, name: name, width: width, height: height, bounds: Self.box, color: TestSources.terrain)
    }

    @Test func buildsInspectsVerifiesAndExtracts() throws {
        let src = try source()
        let out = dir.file("co.mbtiles")
        let build = try CLIRunner.run([
            "build", "--source", src, "--name", "Colorado", "--minzoom", "3", "--maxzoom", "6",
            "--out", out, "--threads", "2"
        ])
        #expect(build.status == 0, "\(build.stderr)")
        #expect(build.stdout.contains("tiles stored"))
        #expect(build.stderr.contains("tiles") || build.stderr.isEmpty == false, "progress goes to stderr")

        let inspect = try CLIRunner.run(["bundle", "inspect", out])
        #expect(inspect.status == 0)
        #expect(inspect.stdout.contains("name: Colorado") && inspect.stdout.contains("dedup ratio"))
        let json = try CLIRunner.run(["bundle", "inspect", "--json", out])
        let object = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        #expect((object?["zoomLevels"] as? [Any])?.count == 4)

        let verify = try CLIRunner.run(["bundle", "verify", out])
        #expect(verify.status == 0 && verify.stdout.contains("OK"), "\(verify.stderr)")

        let small = dir.file("small.mbtiles")
        let extract = try CLIRunner.run(["bundle", "extract", out, "--bbox", "-106,39,-105,40", "--out", small])
        #expect(extract.status == 0, "\(extract.stderr)")
        let big = try BundleReader(path: out).zoomLevels().reduce(0) { $0 + $1.tiles }
        let cut = try BundleReader(path: small).zoomLevels().reduce(0) { $0 + $1.tiles }
        #expect(cut > 0 && cut < big)
        #expect(try CLIRunner.run(["bundle", "verify", small]).status == 0)
    }

    @Test func quietBuildPrintsNothing() throws {
        let r = try CLIRunner.run([
            "build", "--source", try source(), "--name", "Q", "--minzoom", "2", "--maxzoom", "3",
            "--out", dir.file("q.mbtiles"), "--quiet"
        ])
        #expect(r.status == 0 && r.stdout.isEmpty && r.stderr.isEmpty)
    }

    @Test func badInputExitsNonZeroWithAMessage() throws {
        let src = try source()
        let cases: [([String], String)] = [
            (["--source", dir.file("missing.png"), "--minzoom", "1", "--maxzoom", "2"], "missing.png"),
            (["--source", src, "--minzoom", "5", "--maxzoom", "2"], "minzoom 5 is greater than maxzoom 2"),
            (["--source", src, "--minzoom", "1", "--maxzoom", "23"], "0 to 22"),
            (["--source", src, "--minzoom", "1", "--maxzoom", "2", "--memory-limit", "lots"], "memory-limit"),
            (["--source", src, "--minzoom", "1", "--maxzoom", "2", "--resampling", "sinc"], "resampling")
        ]
        for (args, message) in cases {
            let r = try CLIRunner.run(["build", "--name", "X", "--out", dir.file("x.mbtiles")] + args)
            #expect(r.status != 0, "\(args)")
            #expect(r.stderr.contains(message), "\(args): \(r.stderr)")
        }
        #expect(!dir.contents.contains { $0.contains("x.mbtiles") })
    }

    @Test func verifyListsProblemsOfACorruptBundle() throws {
        let out = dir.file("c.mbtiles")
        #expect(
            try CLIRunner.run([
                "build", "--source", try source(), "--name", "C", "--minzoom", "2", "--maxzoom", "3",
                "--out", out, "--quiet"
            ]).status == 0)
        // Overwrite one stored tile image with junk.
        let sqlite = try CLIRunner.run(
            ["-cmd", "UPDATE images SET tile_data = x'89504e470d0a1a0a0000' WHERE rowid = 1", out, ".quit"],
            executable: "/usr/bin/sqlite3")
        #expect(sqlite.status == 0, "\(sqlite.stderr)")
        let r = try CLIRunner.run(["bundle", "verify", out])
        #expect(r.status == 1)
        #expect(r.stderr.contains("does not decode: corrupt PNG"), "\(r.stderr)")
        let notBundle = dir.file("n.mbtiles")
        try Data("plain text".utf8).write(to: URL(fileURLWithPath: notBundle))
        let r2 = try CLIRunner.run(["bundle", "verify", notBundle])
        #expect(r2.status == 1 && r2.stderr.contains("not an SQLite database"))
    }

    @Test func aBuildKilledHalfWayLeavesNoBundleAndCanRunAgain() throws {
        let src = try source("big", width: 900, height: 600)
        let out = dir.file("k.mbtiles")
        let args = ["build", "--source", src, "--name", "K", "--minzoom", "4", "--maxzoom", "11", "--out", out, "--threads", "1"]
        let (p, _, _) = try CLIRunner.start(args)
        // Wait until the temporary bundle exists, then a little longer, then kill -9.
        let deadline = Date().addingTimeInterval(60)
        while !dir.contents.contains(where: { $0.hasSuffix(".building") }) && Date() < deadline && p.isRunning {
            Thread.sleep(forTimeInterval: 0.05)
        }
        Thread.sleep(forTimeInterval: 0.5)
        #expect(p.isRunning, "the build should still be running")
        kill(p.processIdentifier, SIGKILL)
        p.waitUntilExit()
        #expect(!FileManager.default.fileExists(atPath: out), "no finished-looking bundle after kill -9")
        #expect(dir.contents.contains { $0.hasSuffix(".building") })
        // Running it again (a smaller zoom range, to keep the test short) works and cleans up.
        var again = args
        again[again.firstIndex(of: "11")!] = "5"
        let r = try CLIRunner.run(again)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(dir.contents.filter { $0.hasSuffix(".building") }.isEmpty)
        #expect(try CLIRunner.run(["bundle", "verify", out]).status == 0)
    }

    /// A UTM GeoTIFF made by GDAL builds from the command line, listed in a --source-list file;
    /// the new flags' bad values exit non-zero with a message and write nothing.
    @Test func realSourcesAndTheirFlags() throws {
        let png = try source("relief", width: 120, height: 80)
        let tif = dir.file("relief-utm.tif")
        try GDALTools.warp(
            png, tif,
            [
                "-s_srs", "EPSG:4326", "-t_srs", "EPSG:32613", "-tr", "5000", "5000", "-dstnodata", "0",
                "-co", "TILED=YES", "-co", "COMPRESS=DEFLATE"
            ])
        try "# sheets\nrelief-utm.tif\n\n".write(toFile: dir.file("sheets.txt"), atomically: true, encoding: .utf8)
        try "# nothing here\n".write(toFile: dir.file("none.txt"), atomically: true, encoding: .utf8)
        try FileManager.default.createDirectory(atPath: dir.file("empty-folder"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: dir.file("nested/quad-39105"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: tif, toPath: dir.file("nested/quad-39105/sheet.tif"))
        let out = dir.file("utm.mbtiles")
        let r = try CLIRunner.run([
            "build", "--source-list", dir.file("sheets.txt"), "--name", "UTM", "--minzoom", "3",
            "--maxzoom", "6", "--out", out, "--effort", "fast", "--src-nodata", "0"
        ])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try CLIRunner.run(["bundle", "verify", out]).status == 0)
        // Negative numbers are values, not flags: `--bounds -110,...` and `--src-nodata -9999`.
        let negative = try CLIRunner.run([
            "build", "--source", tif, "--name", "UTM", "--minzoom", "3", "--maxzoom", "4",
            "--bounds", "-106,37,-100,41", "--src-nodata", "-9999", "--scale", "-5,300",
            "--out", dir.file("negative.mbtiles")
        ])
        #expect(negative.status == 0, "\(negative.stderr)")
        let bounds = try BundleReader(path: dir.file("negative.mbtiles")).metadataPairs()["bounds"]
        #expect(bounds?.hasPrefix("-106.") == true, "\(String(describing: bounds))")
        // --scale on 8-bit bands does nothing, and the build says so (once for the sources alike).
        let copy = dir.file("relief-utm-2.tif")
        try FileManager.default.copyItem(atPath: tif, toPath: copy)
        let scaled = try CLIRunner.run([
            "build", "--source", tif, "--source", copy, "--name", "UTM", "--minzoom", "3", "--maxzoom", "3",
            "--scale", "0,100", "--out", dir.file("scaled.mbtiles")
        ])
        #expect(scaled.status == 0, "\(scaled.stderr)")
        #expect(
            scaled.stderr.contains("relief-utm.tif and 1 other source(s) like it: --scale is not applied: its bands are 8-bit"),
            "\(scaled.stderr)")
        let cases: [([String], String)] = [
            (["--source", tif, "--source-crs", "EPSG:999999"], "EPSG:999999"),
            (["--source", tif, "--scale", "5,5"], "MIN must be less than MAX"),
            (["--source", tif, "--scale", "5"], "--scale must be MIN,MAX"),
            (["--source", tif, "--scale", "--out", dir.file("y.mbtiles")], "--scale needs a value before --out"),
            (["--source", tif, "--src-nodata", "--quiet"], "--src-nodata needs a value before --quiet"),
            (["--source", tif, "--src-nodata", "none"], "--src-nodata"),
            (["--source", tif, "--effort", "huge"], "effort"),
            (["--source", tif, "--bands", "0,1,2"], "--bands must be 1 to 4 band numbers"),
            (["--source", tif, "--bands", "1,2,3,4,5"], "--bands must be 1 to 4 band numbers"),
            (["--source", tif, "--bands", "1,2,4"], "--bands 4: the raster has bands 1-3"),
            (["--source", tif, "--gcp-transform", "order9"], "order9"),
            (["--source", tif, "--open-option", "DPI"], "--open-option DPI: give KEY=VALUE"),
            (["--source", tif, "--open-option", "NOT_AN_OPTION=1"], "does not support open option NOT_AN_OPTION"),
            (["--source-list", dir.file("absent.txt")], "absent.txt"),
            (["--source-list", dir.file("none.txt")], "names no files"),
            (["--source", dir.file("empty-folder")], "holds no raster files"),
            (["--source", dir.file("nested")], "subfolder(s) (quad-39105) are not searched"),
            (["--source", "GPKG:" + dir.file("none.gpkg") + ":quad"], "GPKG:" + dir.file("none.gpkg") + ":quad: no such file"),
            (["--source", dir.file("relief.pgw")], "relief.pgw")
        ]
        // Every pixel nodata: a valid, empty bundle, and a warning saying why it is empty.
        let blank = dir.file("blank.tif")
        try GDALTools.run(
            "gdal_create",
            [
                "-q", "-outsize", "20", "20", "-bands", "1", "-burn", "0", "-a_nodata", "0",
                "-a_srs", "EPSG:4326", "-a_ullr", "-106", "40", "-105", "39", blank
            ])
        let empty = try CLIRunner.run([
            "build", "--source", blank, "--name", "Blank", "--minzoom", "3", "--maxzoom", "6",
            "--out", dir.file("blank.mbtiles")
        ])
        #expect(empty.status == 0 && empty.stderr.contains("holds no tiles: every pixel of the sources is transparent"), "\(empty.stderr)")
        for (args, message) in cases {
            let bad = try CLIRunner.run(["build", "--name", "X", "--minzoom", "1", "--maxzoom", "2", "--out", dir.file("x.mbtiles")] + args)
            #expect(bad.status != 0, "\(args)")
            #expect(bad.stderr.contains(message), "\(args): \(bad.stderr)")
        }
        #expect(!dir.contents.contains { $0.contains("x.mbtiles") })
    }

    /// Without --minzoom/--maxzoom the build takes them from the sources and says which.
    @Test func zoomsDefaultToTheSources() throws {
        let png = try source("relief", width: 120, height: 80)
        let tif = dir.file("relief-1km.tif")
        try GDALTools.warp(png, tif, ["-s_srs", "EPSG:4326", "-t_srs", "EPSG:32613", "-tr", "1000", "1000", "-dstnodata", "0"])
        let out = dir.file("auto.mbtiles")
        let r = try CLIRunner.run(["build", "--source", tif, "--name", "Auto", "--out", out, "--threads", "2"])
        #expect(r.status == 0, "\(r.stderr)")
        let levels = try BundleReader(path: out).zoomLevels().map(\.zoom)
        let lo = try #require(levels.min()), hi = try #require(levels.max())
        #expect(r.stdout.contains("zooms \(lo)-\(hi), from the sources' resolution and extent"), "\(r.stdout)")
        // 1 km pixels at ~39°N are ~1.3 km in Web Mercator: zoom 6 (2.4 km) does not upsample them, zoom 7 (1.2 km) would.
        #expect(hi == 6)
        #expect(lo < hi)

        // One end given: the other still comes from the sources.
        let capped = try CLIRunner.run([
            "build", "--source", tif, "--name", "Auto", "--maxzoom", "\(hi - 1)",
            "--out", dir.file("capped.mbtiles")
        ])
        #expect(capped.status == 0 && capped.stdout.contains("lowest zoom \(lo), where the region fits one tile"), "\(capped.stdout)")
        #expect(try BundleReader(path: dir.file("capped.mbtiles")).zoomLevels().map(\.zoom) == Array(lo...(hi - 1)))
    }
}
