import Foundation
import Raster
import Testing
import TileGeometry
import TileStore
import TrailMapTestSupport

/// `trailmap build --format/--quality/--lossless` and the manifest's `output.format`.
@Suite(.serialized, .blockingThreads) struct TileFormatCommandTests {
    let dir = TemporaryDirectory()
    static let box = GeoBounds(west: -110, south: 36, east: -101, north: 42)

    @Test func formatFlagsBuildAndBadCombinationsAreRefused() throws {
        let src = try TestSources.write(in: dir, name: "terrain", width: 240, height: 160, bounds: Self.box, color: TestSources.terrain)
        let base = ["build", "--source", src, "--name", "F", "--minzoom", "3", "--maxzoom", "5", "--quiet"]
        for (flags, format) in [
            (["--format", "webp", "--lossless"], "webp"), (["--format", "webp", "--quality", "75"], "webp"),
            (["--format", "jpeg", "--quality", "80"], "jpg"), (["--format", "jpg"], "jpg")
        ] {
            let out = dir.file("\(flags.joined()).mbtiles")
            let r = try CLIRunner.run(base + flags + ["--out", out])
            #expect(r.status == 0, "\(flags): \(r.stderr)")
            #expect(try BundleReader(path: out).metadataPairs()["format"] == format, "\(flags)")
        }
        let bad: [([String], String)] = [
            (["--format", "gif"], "--format must be png, webp or jpeg"),
            (["--format", "webp", "--quality", "0"], "--quality must be 1-100"),
            (["--format", "jpeg", "--quality", "101"], "--quality must be 1-100"),
            (["--quality", "80"], "--quality applies to --format webp or jpeg"),
            (["--format", "png", "--quality", "80"], "--quality applies to --format webp or jpeg"),
            (["--format", "jpeg", "--lossless"], "--lossless applies to --format webp only"),
            (["--format", "png", "--lossless"], "--lossless applies to --format webp only"),
            (["--format", "webp", "--lossless", "--quality", "90"], "exclude each other"),
            (["--tile-size", "300"], "--tile-size must be 256 or 512"),
            (["--rounding", "up"], "--rounding"),
            (["--format", "webp", "--rounding", "nearest"], "--rounding applies to png tiles")
        ]
        for (i, (flags, message)) in bad.enumerated() {
            let out = dir.file("bad\(i).mbtiles")
            let r = try CLIRunner.run(base + flags + ["--out", out])
            #expect(r.status != 0 && r.stderr.contains(message), "\(flags): \(r.stderr)")
            #expect(!FileManager.default.fileExists(atPath: out))
        }
    }

    /// `--rounding nearest` stores the computed values; the default stores each within one level
    /// of them, in fewer bytes.
    @Test func theRoundingFlagChoosesHowValuesAreStored() throws {
        let src = try TestSources.write(in: dir, name: "terrain", width: 480, height: 320, bounds: Self.box, color: TestSources.terrain)
        var bundles = [String: [TileID: Data]]()
        for flags in [[], ["--rounding", "nearest"], ["--rounding", "compact"]] {
            let out = dir.file("r\(flags.joined()).mbtiles")
            let r = try CLIRunner.run(
                ["build", "--source", src, "--name", "R", "--minzoom", "3", "--maxzoom", "6", "--quiet", "--out", out] + flags)
            #expect(r.status == 0, "\(flags): \(r.stderr)")
            bundles[flags.last ?? "default"] = try TestBundle.tiles(out)
        }
        let compact = try #require(bundles["compact"]), nearest = try #require(bundles["nearest"])
        #expect(bundles["default"] == compact, "compact is the default")
        #expect(Set(compact.keys) == Set(nearest.keys))
        let size = { (tiles: [TileID: Data]) in tiles.values.reduce(0) { $0 + $1.count } }
        #expect(size(compact) < size(nearest), "compact \(size(compact)) B, nearest \(size(nearest)) B")
        var largest = 0
        for (t, data) in compact {
            let a = try TileDecoder.decode(Array(data)), b = try TileDecoder.decode(Array(nearest[t]!))
            for i in 0..<a.pixels.count { largest = max(largest, abs(Int(a.pixels[i]) - Int(b.pixels[i]))) }
        }
        #expect(largest == 1, "compact tiles are \(largest) levels from nearest ones")
    }

    @Test func theManifestChoosesTheFormat() throws {
        _ = try TestSources.write(in: dir, name: "terrain", width: 240, height: 160, bounds: Self.box, color: TestSources.terrain)
        let json =
            #"{"name": "M", "output": {"format": "webp", "lossless": true, "tileSize": 512}, "#
            + #""layers": [{"name": "t", "sources": ["terrain.png"], "minzoom": 3, "maxzoom": 4}]}"#
        try json.write(toFile: dir.file("m.json"), atomically: false, encoding: .utf8)
        let out = dir.file("m.mbtiles")
        let r = try CLIRunner.run(["build", "--manifest", dir.file("m.json"), "--out", out, "--quiet"])
        #expect(r.status == 0, "\(r.stderr)")
        let meta = try BundleReader(path: out).metadataPairs()
        #expect(meta["format"] == "webp" && meta["trailmap:tilesize"] == "512")
        let bad =
            #"{"name": "M", "output": {"format": "png", "quality": 80}, "#
            + #""layers": [{"name": "t", "sources": ["terrain.png"], "minzoom": 3, "maxzoom": 4}]}"#
        try bad.write(toFile: dir.file("bad.json"), atomically: false, encoding: .utf8)
        let refused = try CLIRunner.run(["build", "--manifest", dir.file("bad.json"), "--out", dir.file("bad.mbtiles")])
        #expect(refused.status != 0 && refused.stderr.contains("output.quality: applies to webp and jpeg tiles"), "\(refused.stderr)")
    }

    @Test func gdalReadsEachFormatAndVerifyAndExportKnowThem() throws {
        let src = try TestSources.write(in: dir, name: "terrain", width: 240, height: 160, bounds: Self.box, color: TestSources.terrain)
        for (flags, ext) in [([String](), "png"), (["--format", "webp", "--lossless"], "webp"), (["--format", "jpeg"], "jpg")] {
            let out = dir.file("g\(ext).mbtiles")
            let r = try CLIRunner.run(
                ["build", "--source", src, "--name", "G", "--minzoom", "3", "--maxzoom", "5", "--quiet", "--out", out] + flags)
            #expect(r.status == 0, "\(r.stderr)")
            let info = try GDALTools.run("gdalinfo", [out])
            #expect(info.contains("Driver: MBTiles") && info.contains("Band 4"), "GDAL opens the \(ext) bundle: \(info.prefix(400))")
            let verify = try CLIRunner.run(["bundle", "verify", out])
            #expect(verify.status == 0, "\(verify.stderr)")
            let inspect = try CLIRunner.run(["bundle", "inspect", out])
            #expect(inspect.stdout.contains("tiles: \(ext), 256 px"), "\(inspect.stdout.prefix(300))")
            let folder = dir.file("x\(ext)")
            let export = try CLIRunner.run(["bundle", "export", out, "--dir", folder])
            #expect(export.status == 0, "\(export.stderr)")
            let files = FileManager.default.enumerator(atPath: folder)?.compactMap { $0 as? String } ?? []
            #expect(
                files.contains { $0.hasSuffix(".\(ext)") }
                    && !files.contains { $0.hasPrefix("5/") && $0.split(separator: "/").count == 3 && !$0.hasSuffix(".\(ext)") })
        }
        // A PNG tile slipped into the WebP bundle: verify names it.
        let sqlite = ChildProcess()
        sqlite.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        let png = try Data(contentsOf: URL(fileURLWithPath: src)).map { String(format: "%02x", $0) }.joined()
        sqlite.arguments = [
            dir.file("gwebp.mbtiles"), "UPDATE images SET tile_data = x'\(png)' WHERE rowid = (SELECT min(rowid) FROM images)"
        ]
        try sqlite.run()
        sqlite.waitUntilExit()
        #expect(sqlite.terminationStatus == 0)
        let verify = try CLIRunner.run(["bundle", "verify", dir.file("gwebp.mbtiles")])
        #expect(verify.status != 0 && verify.stderr.contains("a PNG tile in a bundle whose format is webp"), "\(verify.stderr)")
    }
}
