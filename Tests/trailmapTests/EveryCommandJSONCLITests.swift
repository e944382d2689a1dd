import Foundation
import Testing
import TileGeometry
import TrailMapTestSupport

/// `--json` on every command that reports something: stdout is one JSON object in the house
/// style (keys sorted, no `\/` though paths and URLs are in it), run over real files, a real
/// catalog and a real server.
@Suite(.serialized, .blockingThreads) struct EveryCommandJSONCLITests {
    /// The whole of stdout parsed as one JSON object; the command succeeded.
    static func object(_ r: CLIRunner.Result, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> [String: Any] {
        #expect(r.status == 0, "\(what): \(r.status) \(r.stderr)", sourceLocation: sourceLocation)
        #expect(!r.stdout.contains("\\/"), "\(what): \(r.stdout)", sourceLocation: sourceLocation)
        return try #require(
            try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any], "\(what): \(r.stdout)",
            sourceLocation: sourceLocation)
    }

    /// Keys in sorted order, as the one encoder writes them.
    static func keysSorted(_ text: String) -> Bool {
        let keys = text.split(separator: "\n").filter { $0.hasPrefix("  \"") }.compactMap { $0.dropFirst(3).split(separator: "\"").first }
        return !keys.isEmpty && keys == keys.sorted()
    }

    @Test func fileAndCatalogCommandsPrintJSON() throws {
        let dir = TemporaryDirectory()
        let tiles = dir.file("tiles")
        try FileManager.default.createDirectory(atPath: tiles, withIntermediateDirectories: true)
        let png = try TestSources.write(
            in: dir, name: "alps", width: 64, height: 64,
            bounds: GeoBounds(west: 7, south: 46, east: 8, north: 47), color: TestSources.terrain)
        let tif = dir.file("alps.tif")
        try GDALTools.translate(png, tif, ["-a_srs", "EPSG:4326"])
        let bundle = (tiles as NSString).appendingPathComponent("alps.mbtiles")
        var parts = [String]()
        for k in 1...2 {
            let part = dir.file("part\(k).mbtiles")
            let r = try CLIRunner.run([
                "build", "--source", tif, "--name", "Alps", "--minzoom", "3", "--maxzoom", "6", "--shard", "\(k)/2",
                "--out", part, "--quiet"
            ])
            #expect(r.status == 0, "\(r.stderr)")
            parts.append(part)
        }

        let merged = try Self.object(try CLIRunner.run(["bundle", "merge"] + parts + ["--out", bundle, "--json"]), "merge")
        #expect(merged["out"] as? String == bundle && merged["parts"] as? Int == 2 && (merged["tiles"] as? Int ?? 0) > 0, "\(merged)")

        let small = dir.file("small.mbtiles")
        let extract = try CLIRunner.run(["bundle", "extract", bundle, "--bbox", "7,46,7.5,46.5", "--out", small, "--json"])
        let cut = try Self.object(extract, "extract")
        #expect(cut["file"] as? String == small && (cut["tiles"] as? Int ?? 0) > 0 && cut["trails"] as? Int == 0, "\(cut)")
        #expect(Self.keysSorted(extract.stdout), "\(extract.stdout)")

        let folder = try Self.object(try CLIRunner.run(["bundle", "export", small, "--dir", dir.file("xyz"), "--json"]), "export --dir")
        #expect(folder["dir"] as? String == dir.file("xyz") && folder["tiles"] as? Int == cut["tiles"] as? Int, "\(folder)")
        #expect(
            folder["minzoom"] as? Int == 3 && folder["maxzoom"] as? Int == 6 && folder["fileExtension"] as? String == "png", "\(folder)")
        let archive = try CLIRunner.run(["bundle", "export", small, "--pmtiles", dir.file("small.pmtiles"), "--json"])
        let pm = try Self.object(archive, "export --pmtiles")
        #expect(pm["pmtiles"] as? String == dir.file("small.pmtiles") && pm["addressedTiles"] as? Int == cut["tiles"] as? Int, "\(pm)")
        #expect(!archive.stderr.isEmpty, "the note about public archives stays on stderr")

        let trails = dir.file("trails.geojson")
        try #"""
        {"type":"FeatureCollection","features":[
        {"type":"Feature","properties":{"name":"Ridge Path"},
         "geometry":{"type":"LineString","coordinates":[[7.1,46.1],[7.2,46.2],[7.3,46.2]]}}]}
        """#.write(toFile: trails, atomically: true, encoding: .utf8)
        let added = try Self.object(
            try CLIRunner.run(["trails", "add", small, "--trails", trails, "--preset", "generic", "--json"]), "trails add")
        #expect(
            added["bundle"] as? String == small && added["trails"] as? Int == 1 && (added["skipped"] as? [Any])?.isEmpty == true, "\(added)"
        )
        let verified = try Self.object(try CLIRunner.run(["trails", "verify", small, "--json"]), "trails verify")
        #expect(verified["ok"] as? Bool == true && (verified["problems"] as? [Any])?.isEmpty == true, "\(verified)")
        _ = try CLIRunner.run([small, "UPDATE trails_info SET value = '7' WHERE name = 'count'"], executable: "/usr/bin/sqlite3")
        let broken = try CLIRunner.run(["trails", "verify", small, "--json"])
        #expect(broken.status == 1, "\(broken.status) \(broken.stderr)")
        let problems = try #require(try JSONSerialization.jsonObject(with: Data(broken.stdout.utf8)) as? [String: Any], "\(broken.stdout)")
        #expect(problems["ok"] as? Bool == false && !((problems["problems"] as? [String]) ?? []).isEmpty, "\(problems)")

        let products = dir.file("products.json")
        try #"""
        {"products": [{"productId": "com.test.alps", "title": "Alps", "category": "Alps", "description": "test",
          "price": {"amount": "1.99", "currency": "USD"}, "bundle": "alps.mbtiles"}]}
        """#.write(toFile: products, atomically: true, encoding: .utf8)
        let catalog = dir.file("catalog.sqlite")
        let published = try Self.object(
            try CLIRunner.run([
                "catalog", "publish", "--products", products, "--tiles", tiles, "--catalog", catalog,
                "--json"
            ]), "publish")
        let product = try #require((published["products"] as? [[String: Any]])?.first, "\(published)")
        #expect(published["catalog"] as? String == catalog && product["productId"] as? String == "com.test.alps", "\(published)")
        #expect(
            product["change"] as? String == "added" && product["version"] as? Int == 1 && (product["sha256"] as? String)?.count == 64,
            "\(product)")
        let revoked = try Self.object(try CLIRunner.run(["catalog", "revoke-tile-tokens", "--catalog", catalog, "--json"]), "revoke")
        #expect(revoked["catalog"] as? String == catalog && revoked["newKeyId"] is Int, "\(revoked)")

        let places = dir.file("places.txt")
        let row = [
            "2657928", "Zermatt", "Zermatt", "", "46.0207", "7.7491", "P", "PPL", "CH", "", "VS", "2308", "6300", "", "5643", "", "1608",
            "Europe/Zurich", "2024-01-01"
        ]
        try (row.joined(separator: "\t") + "\n").write(toFile: places, atomically: true, encoding: .utf8)
        let loaded = try Self.object(try CLIRunner.run(["catalog", "places", "load", places, "--tiles", tiles, "--json"]), "places load")
        #expect(loaded["places"] as? Int == 1 && (loaded["placeList"] as? String)?.hasPrefix(tiles + "/") == true, "\(loaded)")
        let found = try Self.object(try CLIRunner.run(["catalog", "places", "find", "zerm", "--tiles", tiles, "--json"]), "places find")
        #expect(found["name"] as? String == "Zermatt" && found["lat"] as? Double == 46.0207, "\(found)")

        let sandbox = try Self.object(try CLIRunner.run(["store", "sandbox", "init", dir.file("store"), "--json"]), "sandbox init")
        let files = try #require(sandbox["files"] as? [String: String], "\(sandbox)")
        #expect(sandbox["bundleId"] as? String == "com.trailmap.app" && files.count == 5, "\(sandbox)")
        #expect(files.values.allSatisfy { FileManager.default.fileExists(atPath: $0) }, "\(files)")
    }

    @Test func accountAndDeviceCommandsPrintJSON() throws {
        let server = try FreeAndPaidServer()
        let phone = server.device("phone")
        let id = FreeAndPaidServer.paidId
        let registered = try Self.object(
            try phone.run([
                "account", "register", "--email", "every@example.com", "--password", "correct-horse-battery",
                "--json"
            ]), "register")
        #expect(registered["result"] as? String == "registered" && registered["email"] as? String == "every@example.com", "\(registered)")
        #expect((registered["server"] as? String)?.hasPrefix("http://") == true && registered["deviceId"] is String, "\(registered)")
        let login = try Self.object(
            try phone.run([
                "account", "login", "--email", "every@example.com", "--password", "correct-horse-battery",
                "--json"
            ]), "login")
        #expect(login["result"] as? String == "logged_in" && login["deviceId"] as? String == registered["deviceId"] as? String, "\(login)")

        #expect(try phone.run(["regions", "buy", id]).status == 0)
        #expect(try phone.run(["regions", "install", id, "--quiet"]).status == 0)
        let removed = try Self.object(try phone.run(["regions", "uninstall", id, "--json"]), "uninstall")
        #expect(removed["productId"] as? String == id && (removed["freedBytes"] as? Int ?? 0) > 0, "\(removed)")
        let refund = try Self.object(try phone.run(["regions", "sandbox-refund", id, "--json"]), "sandbox-refund")
        #expect(
            refund["productId"] as? String == id && refund["type"] as? String == "REFUND" && refund["transactionId"] is String, "\(refund)")
        let logout = try Self.object(try phone.run(["account", "logout", "--json"]), "logout")
        #expect(logout["result"] as? String == "logged_out", "\(logout)")
    }
}
