import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import TileGeometry
import TrailMapTestSupport

/// The whole `trailmap account` / `trailmap regions` story against a real `trailmap serve` with a
/// catalog and a sandbox store on loopback: register, browse, buy, install killed half-way and
/// resumed, corruption refused, uninstall, free reinstall, restore on a second device, refund.
@Suite(.serialized, .blockingThreads) struct RegionsEndToEndTests {
    static let id = "com.test.region.co"

    /// A published catalog with one paid product and a running server.
    final class StoreServer {
        let dir = TemporaryDirectory()
        let process: ChildProcess
        let url: String
        let bundlePath: String

        init() throws {
            let tiles = dir.file("server-tiles")
            try FileManager.default.createDirectory(atPath: tiles, withIntermediateDirectories: true)
            let src = try TestSources.write(
                in: dir, name: "co", width: 360, height: 240,
                bounds: GeoBounds(west: -109, south: 37, east: -102, north: 41), color: TestSources.terrain)
            bundlePath = (tiles as NSString).appendingPathComponent("co.mbtiles")
            let build = try CLIRunner.run([
                "build", "--source", src, "--name", "Test Colorado", "--minzoom", "3", "--maxzoom", "7",
                "--out", bundlePath, "--quiet"
            ])
            guard build.status == 0 else { throw CommandError("build: \(build.stderr)") }
            let products = #"""
                {"products": [{"productId": "\#(RegionsEndToEndTests.id)", "title": "Test Colorado", "category": "States/Colorado",
                  "description": "test", "price": {"amount": "4.99", "currency": "USD"}, "bundle": "co.mbtiles"}]}
                """#
            try products.write(toFile: dir.file("products.json"), atomically: true, encoding: .utf8)
            let catalog = dir.file("catalog.sqlite")
            let publish = try CLIRunner.run([
                "catalog", "publish", "--products", dir.file("products.json"), "--tiles", tiles, "--catalog", catalog
            ])
            guard publish.status == 0 else { throw CommandError("publish: \(publish.stderr)") }
            (process, url) = try Self.serve(tiles: tiles, catalog: catalog, sandbox: dir.file("sandbox"))
        }

        /// Makes a sandbox store in `sandbox` and starts `trailmap serve` with it on a free port.
        /// - Returns: the server process and its URL (no trailing slash).
        /// `environment`: added to the server's.
        static func serve(
            tiles: String, catalog: String, sandbox: String, environment: [String: String] = [:]
        ) throws -> (ChildProcess, String) {
            let made = try CLIRunner.run(["store", "sandbox", "init", sandbox])
            guard made.status == 0 else { throw CommandError("sandbox: \(made.stderr)") }
            let (p, out, _) = try CLIRunner.start(
                executable: CLIRunner.binary,
                [
                    "serve", "--tiles", tiles, "--catalog", catalog, "--store-sandbox", sandbox,
                    "--port", "0", "--log-level", "error"
                ], environment: environment)
            let line = String(decoding: out.fileHandleForReading.availableData, as: UTF8.self)
            guard let found = line.split(separator: " ").first(where: { $0.hasPrefix("http://") }) else {
                p.terminate()
                throw CommandError("no URL in \(line)")
            }
            return (p, String(found.hasSuffix("/") ? found.dropLast() : found))
        }

        func stop() {
            guard process.isRunning else { return }
            process.terminate()
            process.waitUntilExit()
        }

        deinit { stop() }
    }

    /// One value from the server's catalog database, read with the sqlite3 command.
    static func sqlite(_ db: String, _ sql: String) throws -> String {
        let p = ChildProcess()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        p.arguments = ["-readonly", db, sql]
        let out = Pipe()
        p.standardOutput = out
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    struct CommandError: Error, CustomStringConvertible { let description: String; init(_ d: String) { description = d } }

    /// One device: a state folder and a tiles folder.
    struct Device {
        let state: String
        let tiles: String
        let server: String

        func run(_ args: [String], extra: [String] = []) throws -> CLIRunner.Result {
            try CLIRunner.run(args + ["--server", server, "--state-dir", state, "--tiles", tiles, "--attempts", "2"] + extra)
        }

        /// Runs with the debug binary's kill hook: SIGKILL once `bytes` are downloaded.
        func run(_ args: [String], killAfter bytes: Int) throws -> CLIRunner.Result {
            try CLIRunner.run(
                ["TRAILMAP_TEST_KILL_AFTER_BYTES=\(bytes)", CLIRunner.binary] + args
                    + ["--server", server, "--state-dir", state, "--tiles", tiles, "--attempts", "2"], executable: "/usr/bin/env")
        }

        var bundle: String { (tiles as NSString).appendingPathComponent("co.mbtiles") }
        var partial: String { (tiles as NSString).appendingPathComponent(".\(RegionsEndToEndTests.id).download") }
    }

    static func mode(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.posixPermissions] as? NSNumber)?.intValue ?? -1
    }

    static func size(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.intValue ?? -1
    }

    @Test func wholeStory() async throws {
        let server = try StoreServer()
        defer { server.stop() }
        let phone = Device(state: server.dir.file("phone/state"), tiles: server.dir.file("phone/Tiles"), server: server.url)
        let id = Self.id
        let login = ["--email", "hiker@example.com", "--password", "correct-horse-battery"]

        let register = try phone.run(["account", "register"] + login)
        #expect(register.status == 0, "\(register.stderr)")
        #expect(Self.mode(phone.state) == 0o700)
        #expect(Self.mode((phone.state as NSString).appendingPathComponent("account.json")) == 0o600)

        let list = try phone.run(["regions", "list"])
        #expect(list.status == 0 && list.stdout.contains(id) && list.stdout.contains("for sale"), "\(list.stdout)\(list.stderr)")
        let listJSON = try phone.run(["regions", "list", "--json", "--category", "States"])
        let products = try JSONSerialization.jsonObject(with: Data(listJSON.stdout.utf8)) as? [[String: Any]]
        #expect(products?.first?["status"] as? String == "for_sale")
        #expect(try phone.run(["regions", "near", "39.5,-105"]).stdout.contains(id))
        #expect(try phone.run(["regions", "near", "10,10"]).stdout.contains("No regions"))

        let notOwned = try phone.run(["regions", "install", id])
        #expect(notOwned.status != 0 && notOwned.stderr.contains("regions buy"), "\(notOwned.stderr)")

        let buy = try phone.run(["regions", "buy", id])
        #expect(buy.status == 0 && buy.stdout.contains("Bought"), "\(buy.stdout)\(buy.stderr)")
        let again = try phone.run(["regions", "buy", id])
        #expect(again.status == 0 && again.stdout.contains("already own") && again.stdout.contains("Nothing was bought"), "\(again.stdout)")

        let tooBig = try phone.run(["regions", "install", id, "--storage-budget", "1KB"])
        #expect(tooBig.status != 0 && tooBig.stderr.contains("storage budget"), "\(tooBig.stderr)")
        #expect(!FileManager.default.fileExists(atPath: phone.partial))

        // kill -9 half-way, then resume.
        let total = Self.size(server.bundlePath)
        let killed = try phone.run(["regions", "install", id, "--chunk-size", "4KB"], killAfter: total / 2)
        #expect(killed.status == 9, "killed by SIGKILL: \(killed.status) \(killed.stderr)")
        let kept = Self.size(phone.partial)
        #expect(kept >= total / 2 && kept < total, "partial \(kept) of \(total)")
        #expect(!FileManager.default.fileExists(atPath: phone.bundle))
        let resumed = try phone.run(["regions", "install", id, "--chunk-size", "4KB"])
        #expect(resumed.status == 0 && resumed.stdout.contains("resumed from"), "\(resumed.stdout)\(resumed.stderr)")
        #expect(FileManager.default.contents(atPath: phone.bundle) == FileManager.default.contents(atPath: server.bundlePath))
        #expect(try CLIRunner.run(["bundle", "verify", phone.bundle]).status == 0)
        let status = try phone.run(["regions", "status", "--json"])
        #expect(status.stdout.contains("\"installed\""), "\(status.stdout)")

        // Uninstall frees the space; reinstalling is free (no purchase).
        let uninstall = try phone.run(["regions", "uninstall", id])
        #expect(uninstall.status == 0 && !FileManager.default.fileExists(atPath: phone.bundle), "\(uninstall.stderr)")
        #expect(try phone.run(["regions", "show", id]).stdout.contains("purchased"))
        // A corrupted partial (a flipped byte) is refused and removed; nothing is installed.
        _ = try phone.run(["regions", "install", id, "--chunk-size", "4KB"], killAfter: total / 2)
        let handle = try #require(FileHandle(forUpdatingAtPath: phone.partial))
        try handle.seek(toOffset: 100)
        let byte = try handle.read(upToCount: 1) ?? Data([0])
        try handle.seek(toOffset: 100)
        handle.write(Data([byte[0] ^ 0xFF]))
        try handle.close()
        let corrupted = try phone.run(["regions", "install", id])
        #expect(corrupted.status != 0 && corrupted.stderr.contains("corrupted"), "\(corrupted.stderr)")
        #expect(!FileManager.default.fileExists(atPath: phone.partial) && !FileManager.default.fileExists(atPath: phone.bundle))
        let reinstall = try phone.run(["regions", "install", id, "--quiet"])
        #expect(reinstall.status == 0 && FileManager.default.fileExists(atPath: phone.bundle), "\(reinstall.stderr)")

        // A second device restores everything owned.
        let tablet = Device(state: server.dir.file("tablet/state"), tiles: server.dir.file("tablet/Tiles"), server: server.url)
        #expect(try tablet.run(["account", "login"] + login).status == 0)
        let restore = try tablet.run(["regions", "restore"])
        #expect(restore.status == 0 && restore.stdout.contains("installed"), "\(restore.stdout)\(restore.stderr)")
        #expect(FileManager.default.contents(atPath: tablet.bundle) == FileManager.default.contents(atPath: server.bundlePath))
        // Reinstalls, the repeated buy and the restore recorded no new store transaction.
        #expect(try Self.sqlite(server.dir.file("catalog.sqlite"), "SELECT COUNT(*) FROM transactions") == "1")
        #expect(try Self.sqlite(server.dir.file("catalog.sqlite"), "SELECT COUNT(*) FROM entitlements") == "1")

        // Refund through a signed store notification: the region is revoked everywhere.
        let refund = try phone.run(["regions", "sandbox-refund", id])
        #expect(refund.status == 0, "\(refund.stderr)")
        #expect(try phone.run(["regions", "status"]).stdout.contains("revoked"))
        #expect(try tablet.run(["regions", "list"]).stdout.contains("revoked"))
        _ = try tablet.run(["regions", "uninstall", id])
        let refused = try tablet.run(["regions", "install", id])
        #expect(refused.status != 0 && refused.stderr.contains("refunded or revoked"), "\(refused.stderr)")

        // Logged out: asks to log in. Server gone: installed regions still listed, clear message elsewhere.
        #expect(try tablet.run(["account", "logout"]).status == 0)
        let loggedOut = try tablet.run(["regions", "restore"])
        #expect(loggedOut.status != 0 && loggedOut.stderr.contains("account login"), "\(loggedOut.stderr)")
        server.stop()
        let offline = try phone.run(["regions", "status"])
        #expect(offline.status == 0 && offline.stdout.contains("Offline") && offline.stdout.contains(id), "\(offline.stdout)")
        let unreachable = try phone.run(["regions", "list"])
        #expect(unreachable.status != 0 && unreachable.stderr.contains("Cannot reach"), "\(unreachable.stderr)")

        // What is installed serves offline, with no store and no registry needed.
        let (offlineServer, out, _) = try CLIRunner.start(["serve", "--tiles", phone.tiles, "--port", "0", "--log-level", "error"])
        defer {
            offlineServer.terminate()
            offlineServer.waitUntilExit()
        }
        let line = String(decoding: out.fileHandleForReading.availableData, as: UTF8.self)
        let base = try #require(line.split(separator: " ").first { $0.hasPrefix("http://") }.map(String.init), "\(line)")
        let tileJSON = try #require(URL(string: base + "tiles/co.json"))
        let (data, response) = try await URLSession.shared.data(from: tileJSON)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(String(decoding: data, as: UTF8.self).contains("Test Colorado"))
    }
}
