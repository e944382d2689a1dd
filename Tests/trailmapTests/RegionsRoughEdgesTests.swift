import Foundation
import Testing
import TileGeometry
import TrailMapTestSupport

/// What a new user hit on the device commands, against a real `trailmap serve` on loopback with a
/// catalog of one southern-hemisphere region built from a GDAL-made GeoTIFF.
@Suite(.serialized, .blockingThreads) struct RegionsRoughEdgesTests {
    typealias CommandError = RegionsEndToEndTests.CommandError
    static let paidId = "com.test.region.sydney"

    /// A published catalog (one paid region around Sydney) and a running server.
    final class SouthernServer {
        let dir = TemporaryDirectory()
        let process: ChildProcess
        let url: String

        init() throws {
            let tiles = dir.file("server-tiles")
            try FileManager.default.createDirectory(atPath: tiles, withIntermediateDirectories: true)
            let png = try TestSources.write(
                in: dir, name: "syd", width: 120, height: 80,
                bounds: GeoBounds(west: 150, south: -35, east: 152, north: -33), color: TestSources.terrain)
            let tif = dir.file("syd.tif")
            try GDALTools.translate(png, tif, ["-a_srs", "EPSG:4326"])
            let build = try CLIRunner.run([
                "build", "--source", tif, "--name", "Test Sydney", "--minzoom", "3", "--maxzoom", "6",
                "--out", (tiles as NSString).appendingPathComponent("syd.mbtiles"), "--quiet"
            ])
            guard build.status == 0 else { throw CommandError("build: \(build.stderr)") }
            let products = #"""
                {"products": [{"productId": "\#(RegionsRoughEdgesTests.paidId)", "title": "Test Sydney", "category": "NSW",
                  "description": "test", "price": {"amount": "2.99", "currency": "USD"}, "bundle": "syd.mbtiles"}]}
                """#
            try products.write(toFile: dir.file("products.json"), atomically: true, encoding: .utf8)
            let catalog = dir.file("catalog.sqlite")
            let publish = try CLIRunner.run([
                "catalog", "publish", "--products", dir.file("products.json"), "--tiles", tiles, "--catalog", catalog
            ])
            guard publish.status == 0 else { throw CommandError("publish: \(publish.stderr)") }
            (process, url) = try RegionsEndToEndTests.StoreServer.serve(tiles: tiles, catalog: catalog, sandbox: dir.file("sandbox"))
        }

        func device(_ name: String) -> RegionsEndToEndTests.Device {
            RegionsEndToEndTests.Device(state: dir.file("\(name)/state"), tiles: dir.file("\(name)/Tiles"), server: url)
        }

        deinit {
            if process.isRunning { process.terminate(); process.waitUntilExit() }
        }
    }

    /// `regions near -33.9,151.2` takes the negative latitude as the point, not as a flag.
    @Test func negativeCoordinatesAreValues() throws {
        let server = try SouthernServer()
        let phone = server.device("phone")
        let near = try phone.run(["regions", "near", "-33.9,151.2"])
        #expect(near.status == 0 && near.stdout.contains(Self.paidId), "\(near.stdout)\(near.stderr)")
        let json = try phone.run(["regions", "near", "-33.9,151.2", "--json"])
        #expect(json.status == 0 && json.stdout.contains(Self.paidId), "\(json.stdout)\(json.stderr)")
        let elsewhere = try phone.run(["regions", "near", "-10,-20"])
        #expect(elsewhere.status == 0 && elsewhere.stdout.contains("No regions"), "\(elsewhere.stdout)\(elsewhere.stderr)")
        let bad = try phone.run(["regions", "near", "-95,10"])
        #expect(bad.status == 64 && bad.stderr.contains("LAT,LON"), "\(bad.status) \(bad.stderr)")
    }

    /// A wrong password is reported as such, not as "not logged in ... run account login".
    @Test func wrongPasswordSaysSo() throws {
        let server = try SouthernServer()
        let phone = server.device("phone")
        let register = try phone.run(["account", "register", "--email", "walker@example.com", "--password", "correct-horse-battery"])
        #expect(register.status == 0, "\(register.stderr)")
        let tablet = server.device("tablet")
        let wrong = try tablet.run(["account", "login", "--email", "walker@example.com", "--password", "wrong-horse-battery"])
        #expect(wrong.status == 1, "\(wrong.status)")
        #expect(wrong.stderr.contains("Wrong email or password") && !wrong.stderr.contains("not logged in"), "\(wrong.stderr)")
        let right = try tablet.run(["account", "login", "--email", "walker@example.com", "--password", "correct-horse-battery"])
        #expect(right.status == 0, "\(right.stderr)")
    }
}
