import Foundation
import Testing
import TrailMapTestSupport

/// The store page's base map of a 512-px `world` tileset, in headless Chromium: shown one zoom up
/// as the viewer shows it (512-px tile elements), asking only for zooms the bundle has.
extension ViewerBrowserTests {
    @Test(.enabled(if: chromium != nil || required, "chromium is not installed"))
    func storePageShowsA512PixelWorldMap() throws {
        let chromium = try #require(Self.chromium, "CI must install chromium")
        let dir = TemporaryDirectory()
        let tiles = dir.file("tiles")
        try FileManager.default.createDirectory(atPath: tiles, withIntermediateDirectories: true)
        try TestBundle.variant(.webp512, to: (tiles as NSString).appendingPathComponent("world.mbtiles"))
        try TestBundle.variant(.png, to: (tiles as NSString).appendingPathComponent("park.mbtiles"))
        let products =
            #"{"products": [{"productId": "test.park", "title": "Park", "category": "Parks", "price": {"amount": "0", "currency": "USD"}, "#
            + #""bundle": "park.mbtiles"}]}"#
        try products.write(toFile: dir.file("products.json"), atomically: false, encoding: .utf8)
        let publish = try CLIRunner.run([
            "catalog", "publish", "--products", dir.file("products.json"), "--tiles", tiles,
            "--catalog", dir.file("catalog.sqlite")
        ])
        #expect(publish.status == 0, "\(publish.stderr)")
        // No product sells the world bundle: the operator makes it public (with a store, unclaimed bundles are closed)
        // and names it the base map.
        let (server, out, err) = try CLIRunner.start([
            "serve", "--tiles", tiles, "--port", "0", "--log-level", "info",
            "--catalog", dir.file("catalog.sqlite"), "--public-tilesets", "world",
            "--base-tileset", "world"
        ])
        defer {
            server.terminate()
            server.waitUntilExit()
        }
        let firstLine = String(decoding: out.fileHandleForReading.availableData, as: UTF8.self)
        let url = try #require(firstLine.split(separator: " ").first { $0.hasPrefix("http://") }.map(String.init), "\(firstLine)")
        // /store#ID opens the product, which makes the map.
        let browser = try CLIRunner.run(
            [
                "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--user-data-dir=\(dir.file("profile"))",
                "--virtual-time-budget=8000", "--dump-dom", url + "store#test.park"
            ], executable: chromium)
        #expect(browser.stdout.contains("leaflet-tile"), "the product's map made Leaflet tile elements: \(browser.stdout.suffix(1500))")
        let world = ViewerBrowserTests.tileElements(of: "world", in: browser.stdout)
        #expect(
            !world.isEmpty && world.allSatisfy { $0.contains("width: 512px; height: 512px") },
            "512-px tiles are shown at 512 px: \(world.prefix(3))")
        server.terminate()
        server.waitUntilExit()
        let log = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).split(separator: "\n")
        let hits = log.filter { $0.contains("GET /tiles/world/") }
        #expect(hits.contains { $0.contains(".webp 200 ") }, "world tiles were fetched: \(hits.prefix(10))")
        #expect(
            !hits.contains { $0.contains(" 400 ") },
            "a zoom the world bundle lacks was asked: \(hits.filter { $0.contains(" 400 ") }.prefix(5))")
    }
}
