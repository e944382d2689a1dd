import Foundation
import Testing
import TileGeometry
import TrailMapTestSupport

/// The viewer page, loaded in headless Chromium, asks the server for tiles
/// (CI installs Debian's chromium; the test is required when CI is set).
@Suite(.blockingThreads) struct ViewerBrowserTests {
    static let chromium = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].first { FileManager.default.isExecutableFile(atPath: $0) }
    static let required = ProcessInfo.processInfo.environment["CI"] != nil

    /// The `<img>` tile elements of tileset `id` in a page's serialized DOM.
    static func tileElements(of id: String, in dom: String) -> [String] {
        dom.components(separatedBy: "<img").dropFirst().map { $0.prefix { $0 != ">" } }.map(String.init)
            .filter { $0.contains("leaflet-tile") && $0.contains("/tiles/\(id)/") }
    }

    @Test(.enabled(if: chromium != nil || required, "chromium is not installed"))
    func viewerRequestsTiles() throws {
        let chromium = try #require(Self.chromium, "CI must install chromium")
        let dir = TemporaryDirectory()
        let tiles = dir.file("tiles")
        try FileManager.default.createDirectory(atPath: tiles, withIntermediateDirectories: true)
        let src = try TestSources.write(
            in: dir, name: "s", width: 180, height: 120,
            bounds: GeoBounds(west: -110, south: 36, east: -101, north: 42), color: TestSources.terrain)
        let build = try CLIRunner.run([
            "build", "--source", src, "--name", "Viewer test", "--minzoom", "2", "--maxzoom", "6",
            "--out", (tiles as NSString).appendingPathComponent("viewer.mbtiles"), "--quiet"
        ])
        #expect(build.status == 0, "\(build.stderr)")

        // Start the server on a free port; its first stdout line carries the URL.
        let (server, out, err) = try CLIRunner.start(["serve", "--tiles", tiles, "--port", "0", "--log-level", "info"])
        defer {
            server.terminate()
            server.waitUntilExit()
        }
        let firstLine = String(decoding: out.fileHandleForReading.availableData, as: UTF8.self)
        let url = try #require(firstLine.split(separator: " ").first { $0.hasPrefix("http://") }.map(String.init), "\(firstLine)")

        let profile = dir.file("profile")
        let browser = try CLIRunner.run(
            [
                "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--user-data-dir=\(profile)",
                "--virtual-time-budget=8000", "--dump-dom", url + "?tileset=viewer"
            ], executable: chromium)
        #expect(browser.stdout.contains("leaflet-tile"), "the page made Leaflet tile elements")

        // The server's access log shows the browser fetching tiles.
        server.terminate()
        server.waitUntilExit()
        let log = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let tileHits = log.split(separator: "\n").filter { $0.contains("GET /tiles/viewer/") && $0.contains(" 200 ") }
        #expect(tileHits.count >= 2, "tile requests in the access log:\n\(log.suffix(2000))")
        #expect(log.contains("GET /viewer/leaflet.js 200"))
    }

    /// Hardening finding 9: a bundle's attribution is shown as text, not run as markup, and the
    /// page still works under its Content-Security-Policy.
    // Hardening finding 9 (docs/notes/hardening.md).
    @Test(.enabled(if: chromium != nil || required, "chromium is not installed"))
    func attributionIsTextInTheViewer() throws {
        let chromium = try #require(Self.chromium, "CI must install chromium")
        let dir = TemporaryDirectory()
        let tiles = dir.file("tiles")
        try FileManager.default.createDirectory(atPath: tiles, withIntermediateDirectories: true)
        let src = try TestSources.write(
            in: dir, name: "s", width: 180, height: 120,
            bounds: GeoBounds(west: -110, south: 36, east: -101, north: 42), color: TestSources.terrain)
        let payload = #"<img id="evil" src="x" onerror="document.body.dataset.pwned=1">Evil maps"#
        let build = try CLIRunner.run([
            "build", "--source", src, "--name", "x", "--minzoom", "2", "--maxzoom", "4", "--attribution", payload,
            "--out", (tiles as NSString).appendingPathComponent("x.mbtiles"), "--quiet"
        ])
        #expect(build.status == 0, "\(build.stderr)")
        let (server, out, _) = try CLIRunner.start(["serve", "--tiles", tiles, "--port", "0"])
        defer {
            server.terminate()
            server.waitUntilExit()
        }
        let firstLine = String(decoding: out.fileHandleForReading.availableData, as: UTF8.self)
        let url = try #require(firstLine.split(separator: " ").first { $0.hasPrefix("http://") }.map(String.init), "\(firstLine)")
        let browser = try CLIRunner.run(
            [
                "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--user-data-dir=\(dir.file("profile"))",
                "--virtual-time-budget=8000", "--dump-dom", url + "?tileset=x"
            ], executable: chromium)
        #expect(browser.stdout.contains("leaflet-tile"), "Leaflet runs under the page's CSP")
        #expect(browser.stdout.contains(#"&lt;img id="evil""#) && !browser.stdout.contains(#"<img id="evil""#), "the attribution is text")
        #expect(!browser.stdout.contains("data-pwned"))
    }

    /// A WebP bundle and a 512-px one: the viewer asks for `.webp` tiles, and for the 512-px
    /// bundle only zooms it has (it shows them one zoom up).
    @Test(.enabled(if: chromium != nil || required, "chromium is not installed"))
    func viewerLoadsWebPAnd512PixelBundles() throws {
        let chromium = try #require(Self.chromium, "CI must install chromium")
        let dir = TemporaryDirectory()
        let tiles = dir.file("tiles")
        try FileManager.default.createDirectory(atPath: tiles, withIntermediateDirectories: true)
        let src = try TestSources.write(
            in: dir, name: "s", width: 180, height: 120,
            bounds: GeoBounds(west: -110, south: 36, east: -101, north: 42), color: TestSources.terrain)
        for (name, size) in [("wp", "256"), ("big", "512")] {
            let build = try CLIRunner.run([
                "build", "--source", src, "--name", name, "--minzoom", "2", "--maxzoom", "5", "--format", "webp",
                "--tile-size", size, "--out", (tiles as NSString).appendingPathComponent("\(name).mbtiles"), "--quiet"
            ])
            #expect(build.status == 0, "\(build.stderr)")
        }
        let (server, out, err) = try CLIRunner.start(["serve", "--tiles", tiles, "--port", "0", "--log-level", "info"])
        defer {
            server.terminate()
            server.waitUntilExit()
        }
        let firstLine = String(decoding: out.fileHandleForReading.availableData, as: UTF8.self)
        let url = try #require(firstLine.split(separator: " ").first { $0.hasPrefix("http://") }.map(String.init), "\(firstLine)")
        for (name, size) in [("wp", 256), ("big", 512)] {
            let browser = try CLIRunner.run(
                [
                    "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                    "--user-data-dir=\(dir.file("profile-\(name)"))",
                    "--virtual-time-budget=8000", "--dump-dom", url + "?tileset=\(name)"
                ], executable: chromium)
            #expect(browser.stdout.contains("leaflet-tile"), "\(name): the page made Leaflet tile elements")
            // Leaflet sizes each tile element to the layer's tileSize: 512-px tiles are shown at 512 px
            // (the other tileset is the base map underneath, at its own size).
            let shown = Self.tileElements(of: name, in: browser.stdout)
            #expect(
                !shown.isEmpty && shown.allSatisfy { $0.contains("width: \(size)px; height: \(size)px") },
                "\(name): tiles at \(size) px: \(shown.prefix(3))")
        }
        server.terminate()
        server.waitUntilExit()
        let log = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).split(separator: "\n")
        for name in ["wp", "big"] {
            let hits = log.filter { $0.contains("GET /tiles/\(name)/") }
            #expect(hits.filter { $0.contains(".webp ") && $0.contains(" 200 ") }.count >= 2, "\(name): \(hits.prefix(10))")
            // Tiles beyond the data are 404 (no tile there); a zoom the bundle lacks would be 400.
            #expect(
                !hits.contains { $0.contains(" 400 ") },
                "\(name): a zoom outside the bundle was asked: \(hits.filter { $0.contains(" 400 ") }.prefix(5))")
        }
    }

    /// The store page, in headless Chromium, lists the published products with their status and
    /// fetches them from the store API.
    @Test(.enabled(if: chromium != nil || required, "chromium is not installed"))
    func storePageListsProducts() throws {
        let chromium = try #require(Self.chromium, "CI must install chromium")
        let dir = TemporaryDirectory()
        let tiles = dir.file("tiles")
        try FileManager.default.createDirectory(atPath: tiles, withIntermediateDirectories: true)
        let src = try TestSources.write(
            in: dir, name: "s", width: 180, height: 120,
            bounds: GeoBounds(west: -110, south: 36, east: -101, north: 42), color: TestSources.terrain)
        for name in ["base", "park"] {
            let build = try CLIRunner.run([
                "build", "--source", src, "--name", name, "--minzoom", "2", "--maxzoom", "4",
                "--out", (tiles as NSString).appendingPathComponent("\(name).mbtiles"), "--quiet"
            ])
            #expect(build.status == 0, "\(build.stderr)")
        }
        let products =
            #"{"products": [{"productId": "test.base", "title": "Free base", "category": "Base maps", "#
            + #""price": {"amount": "0", "currency": "USD"}, "bundle": "base.mbtiles"}, "#
            + #"{"productId": "test.park", "title": "Alpine Park", "category": "National Parks/Alpine", "#
            + #""price": {"amount": "2.99", "currency": "USD"}, "bundle": "park.mbtiles"}]}"#
        try products.write(toFile: dir.file("products.json"), atomically: false, encoding: .utf8)
        let publish = try CLIRunner.run([
            "catalog", "publish", "--products", dir.file("products.json"), "--tiles", tiles,
            "--catalog", dir.file("catalog.sqlite")
        ])
        #expect(publish.status == 0, "\(publish.stderr)")
        let (server, out, err) = try CLIRunner.start([
            "serve", "--tiles", tiles, "--port", "0", "--log-level", "info",
            "--catalog", dir.file("catalog.sqlite")
        ])
        defer {
            server.terminate()
            server.waitUntilExit()
        }
        let firstLine = String(decoding: out.fileHandleForReading.availableData, as: UTF8.self)
        let url = try #require(firstLine.split(separator: " ").first { $0.hasPrefix("http://") }.map(String.init), "\(firstLine)")
        let browser = try CLIRunner.run(
            [
                "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--user-data-dir=\(dir.file("profile"))",
                "--virtual-time-budget=8000", "--dump-dom", url + "store"
            ], executable: chromium)
        #expect(
            browser.stdout.contains("data-id=\"test.park\"") && browser.stdout.contains("Alpine Park"), "\(browser.stdout.suffix(2000))")
        #expect(browser.stdout.contains("class=\"status for_sale\"") && browser.stdout.contains("class=\"status free\""))
        #expect(browser.stdout.contains("National Parks"), "the category tree")
        server.terminate()
        server.waitUntilExit()
        let log = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(log.contains("GET /api/v1/catalog 200"), "\(log.suffix(2000))")
    }
}
