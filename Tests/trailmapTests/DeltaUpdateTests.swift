import BundlePatch
import Foundation
import Testing
import TileGeometry
import TileStore
import TrailMapTestSupport

/// Region updates by patch against a real `trailmap serve`: v1 → v2 (a sheet repainted, a sheet
/// added: tiles changed and added) → v3 (the sheet removed, the description changed: tiles
/// removed, metadata changed). A device updates by patch (its download killed half-way and
/// resumed), a device two versions behind follows patches to v3, and a bundle changed locally
/// falls back to the whole download.
@Suite(.serialized, .blockingThreads) struct DeltaUpdateTests {
    static let id = "com.test.region.delta"
    static let west = GeoBounds(west: -109, south: 37, east: -105, north: 41)
    static let east = GeoBounds(west: -105, south: 37, east: -102, north: 41)

    final class Server {
        let dir = TemporaryDirectory()
        let tiles: String
        var process: ChildProcess?
        var url = ""

        init() throws {
            tiles = dir.file("server-tiles")
            try FileManager.default.createDirectory(atPath: tiles, withIntermediateDirectories: true)
            try sheet("west")
            let products = #"""
                {"products": [{"productId": "\#(DeltaUpdateTests.id)", "title": "Delta", "category": "States/Colorado",
                  "description": "test", "price": {"amount": "4.99", "currency": "USD"}, "bundle": "co.mbtiles"}]}
                """#
            try products.write(toFile: dir.file("products.json"), atomically: true, encoding: .utf8)
            try publish(version: "1.0.0", sources: ["west"])
            guard try CLIRunner.run(["store", "sandbox", "init", dir.file("sandbox")]).status == 0 else { throw Failure("sandbox") }
            let (p, out, _) = try CLIRunner.start([
                "serve", "--tiles", tiles, "--catalog", dir.file("catalog.sqlite"),
                "--store-sandbox", dir.file("sandbox"), "--port", "0", "--log-level", "error"
            ])
            process = p
            let line = String(decoding: out.fileHandleForReading.availableData, as: UTF8.self)
            guard let found = line.split(separator: " ").first(where: { $0.hasPrefix("http://") }) else {
                throw Failure("no URL in \(line)")
            }
            url = String(found.hasSuffix("/") ? found.dropLast() : found)
        }

        /// A source sheet; `patch` paints a square into it.
        func sheet(_ name: String, patch: Bool = false) throws {
            let bounds = name == "west" ? DeltaUpdateTests.west : DeltaUpdateTests.east
            try TestSources.write(in: dir, name: name, width: 240, height: 240, bounds: bounds) { c, r in
                if patch && (100..<124).contains(c) && (100..<124).contains(r) { return (250, 20, 20, 255) }
                return TestSources.terrain(c, r)
            }
        }

        /// Builds the bundle from `sources` and publishes it.
        func publish(version: String, sources: [String], description: String = "Delta trail map") throws {
            let build = try CLIRunner.run(
                ["build"] + sources.flatMap { ["--source", dir.file("\($0).png")] }
                    + [
                        "--name", "Delta", "--minzoom", "3", "--maxzoom", "8", "--bundle-version", version, "--description", description,
                        "--out", (tiles as NSString).appendingPathComponent("co.mbtiles"), "--quiet"
                    ])
            guard build.status == 0 else { throw Failure("build: \(build.stderr)") }
            let publish = try CLIRunner.run([
                "catalog", "publish", "--products", dir.file("products.json"), "--tiles", tiles,
                "--catalog", dir.file("catalog.sqlite")
            ])
            guard publish.status == 0 else { throw Failure("publish: \(publish.stderr)") }
        }

        var bundle: String { (tiles as NSString).appendingPathComponent("co.mbtiles") }

        func patchSize(_ from: Int, _ to: Int) throws -> Int {
            let json = (tiles as NSString).appendingPathComponent(".trailmap-patches/\(DeltaUpdateTests.id)/\(from)-\(to).patch.json")
            let object = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: json))) as? [String: Any]
            return (object?["size"] as? Int) ?? -1
        }

        deinit {
            process?.terminate()
            process?.waitUntilExit()
        }
    }

    struct Failure: Error, CustomStringConvertible { let description: String; init(_ d: String) { description = d } }

    struct Device {
        let state: String, tiles: String, server: String
        func run(_ args: [String]) throws -> CLIRunner.Result {
            try CLIRunner.run(args + ["--server", server, "--state-dir", state, "--tiles", tiles, "--attempts", "2"])
        }
        func run(_ args: [String], killAfter bytes: Int) throws -> CLIRunner.Result {
            try CLIRunner.run(
                args + ["--server", server, "--state-dir", state, "--tiles", tiles, "--attempts", "2"],
                environment: ["TRAILMAP_TEST_KILL_AFTER_BYTES": String(bytes)])
        }
        var bundle: String { (tiles as NSString).appendingPathComponent("co.mbtiles") }
    }

    /// Every tile and the metadata of a bundle.
    static func content(_ path: String) throws -> ([TileID: Data], [String: String]) {
        (try TestBundle.tiles(path), try BundleReader(path: path).metadataPairs())
    }

    /// Waits (up to 10 s) until the server lists version `v`.
    static func waitForVersion(_ v: Int, _ device: Device) throws {
        for _ in 0..<50 {
            let lines = try device.run(["regions", "show", id]).stdout.split(separator: "\n")
            if lines.contains(where: { $0.trimmingCharacters(in: .whitespaces) == "version:    \(v)" }) { return }
            Thread.sleep(forTimeInterval: 0.2)
        }
        Issue.record("the server did not list version \(v) within 10 s")
    }

    @Test func updatesByPatchResumeAndFallBack() throws {
        let server = try Server()
        let phone = Device(state: server.dir.file("phone/state"), tiles: server.dir.file("phone/Tiles"), server: server.url)
        let tablet = Device(state: server.dir.file("tablet/state"), tiles: server.dir.file("tablet/Tiles"), server: server.url)
        let login = ["--email", "hiker@example.com", "--password", "correct-horse-battery"]
        #expect(try phone.run(["account", "register"] + login).status == 0)
        #expect(try phone.run(["regions", "buy", Self.id]).status == 0)
        #expect(try phone.run(["regions", "install", Self.id, "--quiet"]).status == 0)
        #expect(try tablet.run(["account", "login"] + login).status == 0)
        #expect(try tablet.run(["regions", "install", Self.id, "--quiet"]).status == 0)

        // v2: the west sheet repainted in a square, the east sheet added.
        try server.sheet("west", patch: true)
        try server.sheet("east")
        try server.publish(version: "2.0.0", sources: ["west", "east"])
        try Self.waitForVersion(2, phone)
        let full2 = try Int((FileManager.default.attributesOfItem(atPath: server.bundle)[.size] as? NSNumber)?.intValue ?? 0)
        let patch12 = try server.patchSize(1, 2)
        #expect(patch12 > 0 && patch12 < full2, "patch \(patch12) of \(full2) bytes")
        let status = try phone.run(["regions", "status"])
        #expect(status.stdout.contains("v2, ") && status.stdout.contains("by patch"), "\(status.stdout)")

        // The patch download killed half-way, then resumed.
        let killed = try phone.run(["regions", "update", Self.id, "--chunk-size", "4KB"], killAfter: patch12 / 2)
        #expect(killed.status == 9, "killed: \(killed.status) \(killed.stderr)")
        #expect(try Self.content(phone.bundle).1["version"] == "1.0.0", "the installed bundle is untouched")
        let updated = try phone.run(["regions", "update", Self.id, "--chunk-size", "4KB"])
        #expect(
            updated.status == 0 && updated.stdout.contains("from version 1 to 2 by 1 patch") && updated.stdout.contains("saved"),
            "\(updated.stdout)\(updated.stderr)")
        let (phoneTiles, phoneMeta) = try Self.content(phone.bundle), (serverTiles, serverMeta) = try Self.content(server.bundle)
        #expect(phoneTiles == serverTiles && phoneMeta == serverMeta)
        #expect(try phone.run(["regions", "status"]).stdout.contains("installed"))
        // The catalog publishes the version's content hash; the device's patched file has it.
        let shown =
            try JSONSerialization.jsonObject(with: Data(try phone.run(["regions", "show", Self.id, "--json"]).stdout.utf8))
            as? [String: Any]
        let published = try #require(shown?["contentHash"] as? String)
        #expect(try ContentHash.of(bundle: phone.bundle).hash == published)
        // The patched bundle takes about the room of the published file: no free pages kept (a
        // page or two of B-tree packing may differ from the builder's: within 5%, where before the patched file was a third larger).
        let phoneBytes = try Int((FileManager.default.attributesOfItem(atPath: phone.bundle)[.size] as? NSNumber)?.intValue ?? -1)
        let published2 = try Int((FileManager.default.attributesOfItem(atPath: server.bundle)[.size] as? NSNumber)?.intValue ?? 0)
        #expect(phoneBytes > 0 && phoneBytes <= published2 + published2 / 20, "patched \(phoneBytes) bytes, published \(published2)")
        #expect(try phone.run(["regions", "update"]).stdout.contains("up to date"))

        // v3: the east sheet removed again (tiles removed), a new description (metadata).
        try server.publish(version: "3.0.0", sources: ["west"], description: "third edition")
        try Self.waitForVersion(3, phone)
        // The tablet, two versions behind, follows patches to v3.
        let tabletUpdate = try tablet.run(["regions", "update", Self.id])
        #expect(
            tabletUpdate.status == 0 && tabletUpdate.stdout.contains("from version 1 to 3"), "\(tabletUpdate.stdout)\(tabletUpdate.stderr)")
        #expect(try Self.content(tablet.bundle) == Self.content(server.bundle))
        let tabletBytes = try Int((FileManager.default.attributesOfItem(atPath: tablet.bundle)[.size] as? NSNumber)?.intValue ?? -1)
        let full3 = try Int((FileManager.default.attributesOfItem(atPath: server.bundle)[.size] as? NSNumber)?.intValue ?? 0)
        #expect(tabletBytes > 0 && tabletBytes <= full3 + full3 / 20, "patched \(tabletBytes) bytes, published \(full3)")
        // A bundle changed on the device: the patch is refused before the swap, the whole bundle comes instead.
        let sqlite = try CLIRunner.run(
            [phone.bundle, "UPDATE metadata SET value = 'edited' WHERE name = 'name'"], executable: "/usr/bin/sqlite3")
        #expect(sqlite.status == 0)
        let fallback = try phone.run(["regions", "update", Self.id])
        #expect(
            fallback.status == 0 && fallback.stderr.contains("whole bundle was downloaded") && fallback.stderr.contains("changed locally"),
            "\(fallback.stdout)\(fallback.stderr)")
        #expect(FileManager.default.contents(atPath: phone.bundle) == FileManager.default.contents(atPath: server.bundle))
    }

    @Test func publishRefusesKeepingNoVersion() throws {
        let dir = TemporaryDirectory()
        let r = try CLIRunner.run([
            "catalog", "publish", "--products", dir.file("p.json"), "--tiles", dir.path,
            "--catalog", dir.file("c.sqlite"), "--keep-versions", "0"
        ])
        #expect(r.status != 0 && r.stderr.contains("--keep-versions must be at least 1"), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.file("c.sqlite")))
    }
}
