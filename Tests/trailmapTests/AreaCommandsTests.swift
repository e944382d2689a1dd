import Foundation
import Testing
import TileGeometry
import TrailMapTestSupport

/// `trailmap regions area ...` against a real `trailmap serve` with a catalog and a sandbox store:
/// quote the area around a point, buy it, install, list, uninstall, reinstall for free, restore on
/// a second device, refund; the bad input through the CLI; the top zoom lowered to fit a cap.
@Suite(.serialized, .blockingThreads) struct AreaCommandsTests {
    static let region = "com.test.region.co"
    static let offer = "com.test.area"
    static let tiny = "com.test.area.tiny"

    /// A served catalog: the region `co` (zooms 3-9 over Colorado), an area offer cutting from it
    /// (10 MB a purchase) and one whose cap no area fits.
    final class AreaStore {
        let dir = TemporaryDirectory()
        let tiles: String
        let catalog: String
        let process: ChildProcess
        let url: String

        init() throws {
            tiles = dir.file("server-tiles")
            catalog = dir.file("catalog.sqlite")
            try FileManager.default.createDirectory(atPath: tiles, withIntermediateDirectories: true)
            let src = try TestSources.write(
                in: dir, name: "co", width: 720, height: 480,
                bounds: GeoBounds(west: -109, south: 37, east: -102, north: 41), color: TestSources.terrain)
            let build = try CLIRunner.run([
                "build", "--source", src, "--name", "Test Colorado", "--minzoom", "3", "--maxzoom", "9",
                "--out", (tiles as NSString).appendingPathComponent("co.mbtiles"), "--quiet"
            ])
            guard build.status == 0 else { throw Failure("build: \(build.stderr)") }
            try Self.publish(
                [
                    [
                        "productId": AreaCommandsTests.region, "title": "Test Colorado", "category": "States/Colorado",
                        "price": ["amount": "4.99", "currency": "USD"], "bundle": "co.mbtiles"
                    ],
                    [
                        "productId": AreaCommandsTests.offer, "title": "Area around you", "category": "Areas",
                        "price": ["amount": "0.99", "currency": "USD"], "area": ["maxBytes": 10_000_000, "from": ["co.mbtiles"]]
                    ],
                    [
                        "productId": AreaCommandsTests.tiny, "title": "Tiny area", "category": "Areas",
                        "price": ["amount": "0.19", "currency": "USD"], "area": ["maxBytes": 65_536, "from": ["co.mbtiles"]]
                    ]
                ], dir: dir, tiles: tiles, catalog: catalog)
            (process, url) = try RegionsEndToEndTests.StoreServer.serve(tiles: tiles, catalog: catalog, sandbox: dir.file("sandbox"))
        }

        /// Writes the product file and publishes it (the running server sees the change).
        func publish(_ products: [[String: Any]]) throws {
            try Self.publish(products, dir: dir, tiles: tiles, catalog: catalog)
        }

        static func publish(_ products: [[String: Any]], dir: TemporaryDirectory, tiles: String, catalog: String) throws {
            let file = dir.file("products.json")
            try JSONSerialization.data(withJSONObject: ["products": products]).write(to: URL(fileURLWithPath: file))
            let publish = try CLIRunner.run(["catalog", "publish", "--products", file, "--tiles", tiles, "--catalog", catalog])
            guard publish.status == 0 else { throw Failure("publish: \(publish.stderr)") }
        }

        func stop() {
            guard process.isRunning else { return }
            process.terminate()
            process.waitUntilExit()
        }

        deinit { stop() }
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ d: String) { description = d }
    }

    static let login = ["--email", "hiker@example.com", "--password", "correct-horse-battery"]

    static func json(_ r: CLIRunner.Result) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any], "\(r.stdout)\(r.stderr)")
    }

    static func products(_ r: CLIRunner.Result) throws -> [[String: Any]] {
        try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]], "\(r.stdout)\(r.stderr)")
    }

    static func sha256(_ path: String) throws -> String {
        let p = try CLIRunner.run([path], executable: "/usr/bin/sha256sum")
        return String(p.stdout.prefix(64))
    }

    @Test func quoteBuyInstallRestoreRefund() throws {
        let server = try AreaStore()
        defer { server.stop() }
        let db = server.catalog
        let phone = RegionsEndToEndTests.Device(
            state: server.dir.file("phone/state"), tiles: server.dir.file("phone/Tiles"), server: server.url)
        #expect(try phone.run(["account", "register"] + Self.login).status == 0)

        // The offers are listed with their cap and can be neither bought nor installed whole.
        let list = try phone.run(["regions", "list"])
        let offerLine = list.stdout.split(separator: "\n").first { $0.hasPrefix(Self.offer + " ") }.map(String.init) ?? ""
        #expect(
            offerLine.contains("area offer") && offerLine.contains("up to 9.5 MB") && offerLine.contains("0.99 USD per area"),
            "\(list.stdout)")
        #expect(list.stdout.contains("regions area quote LAT,LON --radius-km R"))
        for verb in ["buy", "install"] {
            let refused = try phone.run(["regions", verb, Self.offer])
            #expect(
                refused.status != 0 && refused.stderr.contains("is sold per area")
                    && refused.stderr.contains("trailmap regions area quote LAT,LON --radius-km R --product \(Self.offer)"),
                "\(refused.stderr)")
        }
        let show = try phone.run(["regions", "show", Self.offer])
        #expect(
            show.stdout.contains("kind:       area offer")
                && show.stdout.contains("per area:   up to 9.5 MB (10000000 bytes), cut from co"),
            "\(show.stdout)")

        // A quote: exact size, zooms, price, expiry.
        let text = try phone.run(["regions", "area", "quote", "39.5,-105.5", "--radius-km", "30", "--product", Self.offer])
        #expect(text.status == 0, "\(text.stderr)")
        #expect(
            text.stdout.hasPrefix("Quote ") && text.stdout.contains("product:  \(Self.offer)\n") && text.stdout.contains("0.99 USD")
                && text.stdout.contains("center:   39.5000, -105.5000, radius 30 km") && text.stdout.contains("zooms:    3-9\n")
                && text.stdout.contains("expires:  ") && text.stdout.contains("trailmap regions area buy "), "\(text.stdout)")
        let quoted = try phone.run(["regions", "area", "quote", "39.5,-105.5", "--radius-km", "30", "--json"])
        let quote = try Self.json(quoted)
        let quoteId = try #require(quote["quoteId"] as? String)
        #expect(quote["productId"] as? String == Self.offer, "the offer covering the point is picked")
        #expect(quote["minzoom"] as? Int == 3 && quote["maxzoom"] as? Int == 9 && quote["requestedMaxzoom"] as? Int == 9)
        let size = try #require(quote["size"] as? Int)
        #expect(text.stdout.contains("(\(size) bytes, "), "both quotes cut the same area: \(text.stdout)")

        // Bought through the sandbox store: the area's id, and how to install it.
        let buy = try phone.run(["regions", "area", "buy", quoteId])
        #expect(buy.status == 0, "\(buy.stderr)")
        let areaId = try #require(
            buy.stdout.split(separator: " ").first { $0.hasPrefix("area-") }.map { String($0.dropLast()) }, "\(buy.stdout)")
        #expect(
            buy.stdout.hasPrefix("Bought area \(areaId): ") && buy.stdout.contains("0.99 USD")
                && buy.stdout.contains("Install it with `trailmap regions install \(areaId)`."), "\(buy.stdout)")
        let twice = try phone.run(["regions", "area", "buy", quoteId])
        #expect(twice.status != 0 && twice.stderr.contains("Quote \(quoteId) was already bought"), "\(twice.stderr)")
        let ownedBuy = try phone.run(["regions", "buy", areaId])
        #expect(ownedBuy.status == 0 && ownedBuy.stdout.contains("Nothing was bought"), "\(ownedBuy.stdout)\(ownedBuy.stderr)")

        // Installed like a region: the file is the quoted size, a valid bundle, listed as an area.
        let install = try phone.run(["regions", "install", areaId, "--quiet"])
        #expect(install.status == 0 && install.stdout.contains("SHA-256 verified"), "\(install.stderr)")
        let file = (phone.tiles as NSString).appendingPathComponent("\(areaId).mbtiles")
        #expect(RegionsEndToEndTests.size(file) == size)
        #expect(try CLIRunner.run(["bundle", "verify", file]).status == 0)
        let listed = try Self.products(try phone.run(["regions", "list", "--json"]))
        let area = try #require(listed.first { $0["productId"] as? String == areaId })
        #expect(area["kind"] as? String == "area" && area["areaOf"] as? String == Self.offer && area["status"] as? String == "installed")
        let status = try phone.run(["regions", "status"])
        let areaLine = status.stdout.split(separator: "\n").first { $0.hasPrefix(areaId + " ") }.map(String.init) ?? ""
        #expect(areaLine.contains(" area ") && areaLine.contains("installed"), "\(status.stdout)")
        let statusJSON = try Self.json(try phone.run(["regions", "status", "--json"]))
        let entries = statusJSON["regions"] as? [[String: Any]] ?? []
        #expect(entries.map { $0["kind"] as? String } == ["area"])

        // Uninstalled, then reinstalled for free.
        let uninstall = try phone.run(["regions", "uninstall", areaId])
        #expect(uninstall.status == 0 && !FileManager.default.fileExists(atPath: file), "\(uninstall.stderr)")
        #expect(try phone.run(["regions", "install", areaId, "--quiet"]).status == 0)
        #expect(try Self.sha256(file) == area["sha256"] as? String)

        // Restored on a second device.
        let tablet = RegionsEndToEndTests.Device(
            state: server.dir.file("tablet/state"), tiles: server.dir.file("tablet/Tiles"), server: server.url)
        #expect(try tablet.run(["account", "login"] + Self.login).status == 0)
        let restore = try tablet.run(["regions", "restore"])
        #expect(restore.status == 0 && restore.stdout.contains(areaId), "\(restore.stdout)\(restore.stderr)")
        let tabletFile = (tablet.tiles as NSString).appendingPathComponent("\(areaId).mbtiles")
        #expect(FileManager.default.contents(atPath: tabletFile) == FileManager.default.contents(atPath: file))
        // One purchase: the repeated buy, the reinstall and the restore recorded nothing.
        #expect(try RegionsEndToEndTests.sqlite(db, "SELECT COUNT(*) FROM transactions") == "1")

        // Refunded: revoked on both devices, not downloadable again.
        let refund = try phone.run(["regions", "sandbox-refund", areaId])
        #expect(refund.status == 0, "\(refund.stderr)")
        #expect(
            try phone.run(["regions", "status"]).stdout.split(separator: "\n").contains {
                $0.hasPrefix(areaId + " ") && $0.contains("revoked")
            })
        _ = try tablet.run(["regions", "uninstall", areaId])
        let refused = try tablet.run(["regions", "install", areaId])
        #expect(refused.status != 0 && refused.stderr.contains("refunded or revoked"), "\(refused.stderr)")
        let rebuy = try phone.run(["regions", "buy", areaId])
        #expect(rebuy.status != 0 && rebuy.stderr.contains("refunded or revoked"), "\(rebuy.stdout)\(rebuy.stderr)")
        #expect(try RegionsEndToEndTests.sqlite(db, "SELECT COUNT(*) FROM transactions") == "1")
    }

    @Test func badInputIsRefusedClearly() throws {
        let server = try AreaStore()
        defer { server.stop() }
        let phone = RegionsEndToEndTests.Device(
            state: server.dir.file("phone/state"), tiles: server.dir.file("phone/Tiles"), server: server.url)
        #expect(try phone.run(["account", "register"] + Self.login).status == 0)

        // Nowhere near a map: the nearest regions, with their distances.
        let nowhere = try phone.run(["regions", "area", "quote", "10,10", "--radius-km", "5"])
        #expect(
            nowhere.status != 0 && nowhere.stderr.contains("No map covers 10.0000, 10.0000")
                && nowhere.stderr.contains("Test Colorado (\(Self.region)), ") && nowhere.stderr.contains(" km away"), "\(nowhere.stderr)")
        for (radius, what) in [("0", "more than 0"), ("-3", "more than 0"), ("500", "at most 200")] {
            let bad = try phone.run(["regions", "area", "quote", "39.5,-105.5", "--radius-km=\(radius)"])
            #expect(bad.status != 0 && bad.stderr.contains("--radius-km must be") && bad.stderr.contains(what), "\(bad.stderr)")
        }
        let badPoint = try phone.run(["regions", "area", "quote", "95,10", "--radius-km", "5"])
        #expect(badPoint.status != 0 && badPoint.stderr.contains("LAT,LON"), "\(badPoint.stderr)")
        let zooms = try phone.run(["regions", "area", "quote", "39.5,-105.5", "--radius-km", "5", "--minzoom", "8", "--maxzoom", "4"])
        #expect(zooms.status != 0 && zooms.stderr.contains("--minzoom 8 is above --maxzoom 4"), "\(zooms.stderr)")
        // Zooms the maps there do not hold.
        let outside = try phone.run(["regions", "area", "quote", "39.5,-105.5", "--radius-km", "5", "--minzoom", "15"])
        #expect(
            outside.status != 0 && outside.stderr.contains("no area product here has those zooms; here they have zooms 3 to 9"),
            "\(outside.stderr)")
        let tiny = try phone.run(["regions", "area", "quote", "39.5,-105.5", "--radius-km", "150", "--maxzoom", "9", "--product", Self.tiny]
        )
        #expect(tiny.status != 0 && tiny.stderr.contains("larger than one purchase allows"), "\(tiny.stderr)")
        let region = try phone.run(["regions", "area", "quote", "39.5,-105.5", "--radius-km", "5", "--product", Self.region])
        #expect(region.status != 0 && region.stderr.contains("\(Self.region) is not sold per area"), "\(region.stderr)")

        // Quotes that cannot be bought.
        let unknown = try phone.run(["regions", "area", "buy", "q-nope"])
        #expect(unknown.status != 0 && unknown.stderr.contains("Your account has no quote q-nope"), "\(unknown.stderr)")
        let quote = try Self.json(try phone.run(["regions", "area", "quote", "39.5,-105.5", "--radius-km", "10", "--json"]))
        let quoteId = try #require(quote["quoteId"] as? String)
        let other = RegionsEndToEndTests.Device(
            state: server.dir.file("other/state"), tiles: server.dir.file("other/Tiles"), server: server.url)
        #expect(try other.run(["account", "register", "--email", "other@example.com", "--password", "correct-horse-battery"]).status == 0)
        let foreign = try other.run(["regions", "area", "buy", quoteId])
        #expect(foreign.status != 0 && foreign.stderr.contains("Your account has no quote \(quoteId)"), "\(foreign.stderr)")
        try Self.expire(quoteId, in: server.catalog)
        let expired = try phone.run(["regions", "area", "buy", quoteId])
        #expect(expired.status != 0 && expired.stderr.contains("Quote \(quoteId) has expired; nothing was bought"), "\(expired.stderr)")
        #expect(try RegionsEndToEndTests.sqlite(server.catalog, "SELECT COUNT(*) FROM transactions") == "0")
    }

    /// The top zoom is lowered to fit an offer's cap, and the quote says so.
    @Test func theTopZoomIsLoweredToFitTheCap() throws {
        let server = try AreaStore()
        defer { server.stop() }
        let phone = RegionsEndToEndTests.Device(
            state: server.dir.file("phone/state"), tiles: server.dir.file("phone/Tiles"), server: server.url)
        #expect(try phone.run(["account", "register"] + Self.login).status == 0)
        let point = ["regions", "area", "quote", "39.5,-105.5", "--radius-km", "60", "--json", "--product", Self.offer]
        let full = try Self.json(try phone.run(point))
        let lower = try Self.json(try phone.run(point + ["--maxzoom", "8"]))
        let (fullSize, lowerSize) = (try #require(full["size"] as? Int), try #require(lower["size"] as? Int))
        #expect(full["maxzoom"] as? Int == 9 && lowerSize < fullSize, "\(full) \(lower)")
        // An offer whose cap lies between the two sizes.
        let cap = (fullSize + lowerSize) / 2
        try server.publish([
            [
                "productId": Self.region, "title": "Test Colorado", "category": "States/Colorado",
                "price": ["amount": "4.99", "currency": "USD"],
                "bundle": "co.mbtiles"
            ],
            [
                "productId": "com.test.area.mid", "title": "Mid area", "category": "Areas", "price": ["amount": "0.59", "currency": "USD"],
                "area": ["maxBytes": cap, "from": ["co.mbtiles"]]
            ]
        ])
        let text = try phone.run(["regions", "area", "quote", "39.5,-105.5", "--radius-km", "60", "--product", "com.test.area.mid"])
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stdout.contains("(lowered from 9 to fit the cap)") && text.stdout.contains("\nNote: "), "\(text.stdout)")
        let fixed = try phone.run([
            "regions", "area", "quote", "39.5,-105.5", "--radius-km", "60", "--product", "com.test.area.mid",
            "--maxzoom", "9"
        ])
        #expect(
            fixed.status != 0 && fixed.stderr.contains("The largest radius that fits is ")
                && fixed.stderr.contains("ask again with --radius-km "), "\(fixed.stderr)")
        // The radius it suggests does fit.
        let suggested = try #require(fixed.stderr.components(separatedBy: "ask again with --radius-km ").last?.split(separator: " ").first)
        let retry = try phone.run([
            "regions", "area", "quote", "39.5,-105.5", "--radius-km", String(suggested), "--product", "com.test.area.mid",
            "--maxzoom", "9", "--json"
        ])
        #expect(retry.status == 0, "\(retry.stderr)")
        #expect(try Self.json(retry)["maxzoom"] as? Int == 9)
    }

    /// Makes a quote expire when it was made, seconds ago, as time would (the server sweeps quotes a
    /// minute after they expire, so until then it says "expired").
    static func expire(_ quoteId: String, in db: String) throws {
        let p = ChildProcess()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        p.arguments = [db, ".timeout 5000", "UPDATE area_quotes SET expires_at = created_at WHERE id = '\(quoteId)'"]
        try p.run()
        p.waitUntilExit()
        #expect(p.terminationStatus == 0)
    }
}
