import Foundation
import Testing
import TileGeometry
import TileStore
import TrailMapTestSupport

/// Exit statuses: 0 done, 1 failed (a missing catalog, folder or bundle; an address in use), 64
/// only for usage errors; a failure names what it could not use.
@Suite(.blockingThreads) struct ExitStatusCLITests {
    @Test func missingThingsFailWithOneAndUsageErrorsWith64() throws {
        let dir = TemporaryDirectory()
        let store = dir.file("store"), full = dir.file("full")
        #expect(try CLIRunner.run(["store", "sandbox", "init", store]).status == 0)
        try FileManager.default.createDirectory(atPath: full, withIntermediateDirectories: true)
        #expect(FileManager.default.createFile(atPath: full + "/kept.txt", contents: Data("kept".utf8)))
        let bundle = try TestBundle.write(
            [(try #require(TileID(z: 0, x: 0, y: 0)), [1, 2, 3] as [UInt8])], to: dir.file("b.mbtiles"),
            metadata: BundleMetadata(name: "b", bounds: .world, minZoom: 0, maxZoom: 0))
        let failures: [([String], String)] = [
            // The libraries name no flag; the CLI's words do.
            (["store", "sandbox", "init", store], "give --force to replace it"),
            (["bundle", "export", bundle, "--dir", full], "or give --force to write over it"),
            (["serve", "--tiles", dir.path, "--catalog", dir.file("none.sqlite")], "does not exist"),
            (["serve", "--tiles", dir.file("no-folder")], "is not a folder"),
            (["catalog", "list", "--catalog", dir.file("none.sqlite")], "catalog publish"),
            (["catalog", "revoke-tile-tokens", "--catalog", dir.file("none.sqlite")], "catalog publish"),
            (["trails", "add", dir.file("none.mbtiles"), "--trails", dir.file("t.geojson")], "no such bundle"),
            (
                ["catalog", "publish", "--products", dir.file("none.json"), "--tiles", dir.path, "--catalog", dir.file("c.sqlite")],
                "cannot read"
            ),
            (["bundle", "merge", dir.file("none.mbtiles"), "--out", dir.file("out.mbtiles")], "no such file"),
            (["trails", "verify", dir.file("none.mbtiles"), "--json"], "no such file"),
            // A store asked for but missing: the server does not start without it (it used to run on, the store off).
            (["serve", "--tiles", dir.path, "--port", "0", "--store-sandbox", dir.file("no-store")], "store sandbox init"),
            (
                ["serve", "--tiles", dir.path, "--port", "0", "--store-root-cert", dir.file("none.pem"), "--store-bundle-id", "com.x"],
                "no such file"
            )
        ]
        for (args, message) in failures {
            // Under a time limit: a server that starts instead of failing ends with timeout's 124.
            let r = try CLIRunner.run(["30", CLIRunner.binary] + args, executable: "/usr/bin/timeout")
            #expect(r.status == 1 && r.stderr.contains(message), "\(args): \(r.status) \(r.stderr)")
        }
        let usage: [[String]] = [
            ["serve", "--tiles", dir.path, "--port", "70000"],
            ["serve", "--tiles", dir.path, "--port", "many"],
            ["regions", "near", "north"],
            ["bundle", "export", dir.file("none.mbtiles")],
            ["catalog", "publish", "--keep-versions", "0"],
            ["regions", "sandbox-refund", "x", "--type", "REFUN"]
        ]
        for args in usage {
            let r = try CLIRunner.run(args)
            #expect(r.status == 64, "\(args): \(r.status) \(r.stderr)")
        }
        // A grant lifetime is 0 to 3600 seconds; a server that starts instead ends with timeout's 124.
        for value in ["-1", "nan", "inf", "4000", "abc", ""] {
            let r = try CLIRunner.run(
                ["30", CLIRunner.binary, "serve", "--tiles", dir.path, "--port", "0", "--grant-lifetime=\(value)"],
                executable: "/usr/bin/timeout")
            #expect(r.status == 64 && r.stderr.contains("--grant-lifetime"), "\(value): \(r.status) \(r.stderr)")
        }
    }

    /// A second server on the same port names the address and exits 1.
    @Test func addressInUseNamesTheAddress() throws {
        let dir = TemporaryDirectory()
        let (first, out, _) = try CLIRunner.start(["serve", "--tiles", dir.path, "--port", "0", "--log-level", "error"])
        defer { first.terminate(); first.waitUntilExit() }
        let line = String(decoding: out.fileHandleForReading.availableData, as: UTF8.self)
        let port = try #require(line.split(separator: ":").last.flatMap { Int($0.prefix { $0.isNumber }) }, "\(line)")
        let second = try CLIRunner.run(["serve", "--tiles", dir.path, "--host", "127.0.0.1", "--port", "\(port)", "--log-level", "critical"]
        )
        #expect(second.status == 1, "\(second.status) \(second.stderr)")
        #expect(second.stderr.contains("127.0.0.1:\(port)") && second.stderr.contains("in use"), "\(second.stderr)")
        // The same advice whether the tile loops (the default) or the HTTP server binds the port.
        #expect(second.stderr.contains("choose another --port"), "\(second.stderr)")
        let third = try CLIRunner.run([
            "serve", "--tiles", dir.path, "--host", "127.0.0.1", "--port", "\(port)", "--tile-loops", "0",
            "--log-level", "critical"
        ])
        #expect(third.status == 1 && third.stderr.contains("choose another --port"), "\(third.status) \(third.stderr)")
    }
}
