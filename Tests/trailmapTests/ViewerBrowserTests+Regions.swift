import Foundation
import Testing
import TileGeometry
import TrailMapTestSupport

/// The viewer and the store in headless Chromium over a served catalog: a free base map (zooms
/// 0-3), a free region starting at zoom 9 and a paid one (zooms 9-12, preview 9-11, a hostile
/// name). Screenshots of each page go to `$TRAILMAP_ARTIFACTS`, else `.build/test-artifacts/`.
@Suite(.serialized, .blockingThreads) struct RegionPagesBrowserTests {
    /// Where screenshots go (printed by each test).
    static let artifacts =
        ProcessInfo.processInfo.environment["TRAILMAP_ARTIFACTS"]
        ?? FileManager.default.currentDirectoryPath + "/.build/test-artifacts"
    static let hostile = #"Peak <img id="pwned" src="x">"#

    /// The served folder and catalog, with a sandbox store.
    final class Catalog {
        let dir = TemporaryDirectory()
        let process: ChildProcess
        let url: String

        /// `environment`: added to the server's.
        init(environment: [String: String] = [:]) throws {
            let tiles = dir.file("tiles")
            try FileManager.default.createDirectory(atPath: tiles, withIntermediateDirectories: true)
            let builds: [(String, String, GeoBounds, Int, Int)] = [
                ("world", "World", GeoBounds(west: -170, south: -60, east: 170, north: 70), 0, 3),
                ("alps", "Alps", GeoBounds(west: 10.0, south: 46.0, east: 10.3, north: 46.2), 9, 11),
                ("peak", RegionPagesBrowserTests.hostile, GeoBounds(west: 10.4, south: 46.0, east: 10.6, north: 46.2), 9, 12)
            ]
            for (id, name, bounds, minzoom, maxzoom) in builds {
                let src = try TestSources.write(
                    in: dir, name: "src-\(id)", width: 240, height: 160, bounds: bounds, color: TestSources.terrain)
                let build = try CLIRunner.run([
                    "build", "--source", src, "--name", name, "--minzoom", "\(minzoom)", "--maxzoom", "\(maxzoom)",
                    "--out", (tiles as NSString).appendingPathComponent("\(id).mbtiles"), "--quiet"
                ])
                guard build.status == 0 else { throw DevToolsPipe.Failure("build \(id): \(build.stderr)") }
            }
            let products = #"""
                {"products": [
                  {"productId": "test.world", "title": "World", "category": "Base maps", "price": {"amount": "0", "currency": "USD"},
                   "bundle": "world.mbtiles"},
                  {"productId": "test.alps", "title": "Alps", "category": "Europe", "price": {"amount": "0", "currency": "USD"},
                   "bundle": "alps.mbtiles"},
                  {"productId": "test.peak", "title": "Peak <b id=\"pwned2\">x</b>", "category": "Europe",
                   "price": {"amount": "2.99", "currency": "USD"}, "bundle": "peak.mbtiles"}]}
                """#
            try products.write(toFile: dir.file("products.json"), atomically: false, encoding: .utf8)
            let publish = try CLIRunner.run([
                "catalog", "publish", "--products", dir.file("products.json"), "--tiles", tiles,
                "--catalog", dir.file("catalog.sqlite")
            ])
            guard publish.status == 0 else { throw DevToolsPipe.Failure("publish: \(publish.stderr)") }
            (process, url) = try RegionsEndToEndTests.StoreServer.serve(
                tiles: tiles, catalog: dir.file("catalog.sqlite"), sandbox: dir.file("sandbox"),
                environment: environment)
        }

        deinit {
            if process.isRunning {
                process.terminate()
                process.waitUntilExit()
            }
        }
    }

    /// Saves the page as a PNG screenshot named `name` and returns its path.
    @discardableResult
    static func screenshot(_ browser: DevToolsPipe, _ name: String) throws -> String {
        try FileManager.default.createDirectory(atPath: artifacts, withIntermediateDirectories: true)
        let shot = try browser.send("Page.captureScreenshot", ["format": "png"])
        let data = try #require(Data(base64Encoded: shot["data"] as? String ?? ""))
        let path = artifacts + "/\(name).png"
        try data.write(to: URL(fileURLWithPath: path))
        print("screenshot: \(path)")
        return path
    }

    /// The tile URLs the page has asked for, as `[id, z, url]`.
    static let tileRequests = """
        performance.getEntriesByType('resource').map(e => e.name).map(u => {
          const m = u.match(/\\/tiles\\/([^/]+)\\/(\\d+)\\/\\d+\\/\\d+\\./);
          return m ? [m[1], +m[2], u] : null;
        }).filter(Boolean)
        """

    /// The XYZ tile holding a point at zoom `z` (Web Mercator).
    static func tile(lon: Double, lat: Double, z: Int) -> (Int, Int) {
        let n = Double(1 << z), r = lat * .pi / 180
        let x = Int(((lon + 180) / 360 * n).rounded(.down)), y = Int(((1 - log(tan(r) + 1 / cos(r)) / .pi) / 2 * n).rounded(.down))
        return (min(max(x, 0), Int(n) - 1), min(max(y, 0), Int(n) - 1))
    }

    static func loadedTile(_ id: String, token: Bool? = nil) -> String {
        let t = token.map { $0 ? " && i.src.includes('token=')" : " && !i.src.includes('token=')" } ?? ""
        return "[...document.querySelectorAll('img.leaflet-tile-loaded')].some(i => i.src.includes('/tiles/\(id)/')\(t))"
    }

    @Test(.enabled(if: ViewerBrowserTests.chromium != nil || ViewerBrowserTests.required, "chromium is not installed"))
    func viewerOpensAMinzoom9RegionAtOnceOverTheBaseMap() throws {
        let chromium = try #require(ViewerBrowserTests.chromium, "CI must install chromium")
        let c = try Catalog()
        let browser = try DevToolsPipe(chromium: chromium, profile: c.dir.file("profile"))
        let start = Date()
        try browser.open(c.url + "/?tileset=alps")
        try browser.wait(Self.loadedTile("alps"), seconds: 3)
        let shown = Date().timeIntervalSince(start)
        try browser.wait(Self.loadedTile("world"), seconds: 5)
        usleep(1_500_000)
        let requests = try #require(try browser.evaluate(Self.tileRequests) as? [[Any]])
        #expect(requests.count < 100, "\(requests.count) tile requests on load")
        let bounds = [
            "alps": GeoBounds(west: 10.0, south: 46.0, east: 10.3, north: 46.2),
            "world": GeoBounds(west: -170, south: -60, east: 170, north: 70)
        ]
        for r in requests {
            let (id, z) = (r[0] as? String ?? "", r[1] as? Int ?? -1)
            let range = ["alps": 9...11, "world": 0...3][id]
            #expect(range?.contains(z) == true, "a tile outside its tileset's zooms: \(r)")
            // ... and none outside its bounds (the tiles that hold the bounds' corners, and those between).
            let xy = (r[2] as? String ?? "").split(separator: "/").suffix(2).compactMap { Int($0.split(separator: ".")[0]) }
            if let b = bounds[id], xy.count == 2, z >= 0 {
                let (x0, y0) = Self.tile(lon: b.west, lat: b.north, z: z), (x1, y1) = Self.tile(lon: b.east, lat: b.south, z: z)
                #expect((x0...x1).contains(xy[0]) && (y0...y1).contains(xy[1]), "a tile outside its tileset's bounds: \(r)")
            }
        }
        #expect(try browser.evaluate("map.getZoom()") as? Int ?? 0 >= 9)
        #expect(try browser.evaluate("document.querySelector('.leaflet-control-scale') !== null") as? Bool == true)
        let switcher = try browser.evaluate("document.querySelector('.leaflet-control-layers').textContent") as? String ?? ""
        #expect(switcher.contains("Base map: World") && switcher.contains("Alps") && switcher.contains("(paid)"), "\(switcher)")
        #expect(
            try browser.evaluate("document.getElementById('pwned')") == nil
                || (try browser.evaluate("document.getElementById('pwned') === null") as? Bool) == true)
        #expect(try browser.evaluate("document.getElementById('tilejson').getAttribute('href')") as? String == "/tiles/alps.json")
        try Self.screenshot(browser, "viewer-minzoom9")
        print("viewer: alps tiles shown after \(shown) s, \(requests.count) tile requests")

        // The tileset is removed while the page is open: the next tiles it lacks end in a message, not a loop.
        try FileManager.default.removeItem(atPath: c.dir.file("tiles") + "/alps.mbtiles")
        usleep(2_000_000) // the server rescans its folder every second
        _ = try browser.evaluate("map.setZoom(map.getZoom() - 2); 0") // tiles not asked for yet
        try browser.wait("document.getElementById('msg').textContent.includes('removed')", seconds: 8)
        let before = (try browser.evaluate(Self.tileRequests + ".length") as? Int) ?? 0
        usleep(1_500_000)
        let after = (try browser.evaluate(Self.tileRequests + ".length") as? Int) ?? 0
        #expect(after - before < 20, "no loop of failing requests: \(after - before) more")
        try Self.screenshot(browser, "viewer-tileset-removed")
    }

    @Test(.enabled(if: ViewerBrowserTests.chromium != nil || ViewerBrowserTests.required, "chromium is not installed"))
    func paidRegionPreviewForAnyoneAndEveryZoomForItsBuyer() throws {
        let chromium = try #require(ViewerBrowserTests.chromium, "CI must install chromium")
        let c = try Catalog()
        let browser = try DevToolsPipe(chromium: chromium, profile: c.dir.file("profile"))
        try browser.open(c.url + "/?tileset=peak")
        // Anonymous: the preview's tiles and a prompt to buy.
        try browser.wait(Self.loadedTile("peak", token: false), seconds: 5)
        try browser.wait("document.getElementById('msg').textContent.includes('preview')")
        let prompt = try browser.evaluate("document.getElementById('msg').textContent") as? String ?? ""
        #expect(prompt.contains("/store#test.peak") && prompt.contains("zoom 9–11"), "\(prompt)")
        _ = try browser.evaluate("map.setZoom(13); 0")
        usleep(1_500_000)
        let anonymous = try #require(try browser.evaluate(Self.tileRequests) as? [[Any]])
        #expect(!anonymous.contains { $0[0] as? String == "peak" && ($0[1] as? Int ?? 0) > 11 }, "no paid zoom asked without a purchase")
        #expect(try browser.evaluate("document.getElementById('pwned') === null") as? Bool == true, "the bundle's name is text")
        try Self.screenshot(browser, "viewer-paid-preview")

        // A buyer (registered and bought through the API) signs in on the page.
        let bought =
            try browser.evaluate(
                """
                (async () => {
                  const j = {'Content-Type': 'application/json'};
                  const creds = JSON.stringify({email: 'buyer@example.com', password: 'correct-horse-battery'});
                  await fetch('/api/v1/accounts', {method: 'POST', headers: j, body: creds});
                  const s = await (await fetch('/api/v1/sessions', {method: 'POST', headers: j, body: creds})).json();
                  const h = {...j, Authorization: 'Bearer ' + s.token};
                  const t = await (await fetch('/api/v1/sandbox/transactions',
                    {method: 'POST', headers: h, body: JSON.stringify({productId: 'test.peak'})})).json();
                  return (await fetch('/api/v1/purchases',
                    {method: 'POST', headers: h, body: JSON.stringify({signedTransaction: t.signedTransaction})})).status;
                })()
                """) as? Int
        #expect(bought == 201)
        _ = try browser.evaluate(
            """
            document.getElementById('email').value = 'buyer@example.com';
            document.getElementById('pw').value = 'correct-horse-battery';
            document.getElementById('in').click()
            """)
        try browser.wait(Self.loadedTile("peak", token: true), seconds: 5)
        try browser.wait(
            "[...document.querySelectorAll('img.leaflet-tile-loaded')].some(i => /\\/tiles\\/peak\\/12\\//.test(i.src))", seconds: 5)
        #expect(try browser.evaluate("document.getElementById('msg').hidden") as? Bool == true)
        try Self.screenshot(browser, "viewer-paid-buyer")

        // The session ends elsewhere (signed out on the server): the next token refresh fails with a message, no loop.
        _ = try browser.evaluate(
            "fetch('/api/v1/sessions', {method: 'DELETE', headers: {Authorization: 'Bearer ' + session}}).then(r => r.status)")
        _ = try browser.evaluate("map.setView([46.1, 10.5], 12); map.panBy([600, 0], {animate: false}); 0")
        try browser.wait("document.getElementById('msg').textContent.length > 0 && !document.getElementById('msg').hidden", seconds: 8)
        let ended = try browser.evaluate("document.getElementById('msg').textContent") as? String ?? ""
        #expect(ended.contains("session") || ended.contains("cannot be shown"), "\(ended)")
        let before = (try browser.evaluate(Self.tileRequests + ".length") as? Int) ?? 0
        usleep(1_500_000)
        let after = (try browser.evaluate(Self.tileRequests + ".length") as? Int) ?? 0
        #expect(after - before < 20, "no loop of failing requests: \(after - before) more")
    }

    @Test(.enabled(if: ViewerBrowserTests.chromium != nil || ViewerBrowserTests.required, "chromium is not installed"))
    func storeShowsCoverageAndAPreviewOfAPaidRegion() throws {
        let chromium = try #require(ViewerBrowserTests.chromium, "CI must install chromium")
        let c = try Catalog()
        let browser = try DevToolsPipe(chromium: chromium, profile: c.dir.file("profile"))
        try browser.open(c.url + "/store#test.peak")
        // The preview is the region's own tiles on the base map, at its preview zooms only (9-11 of 9-12).
        try browser.wait(Self.loadedTile("peak"), seconds: 8)
        try browser.wait("document.querySelector('#map path.leaflet-interactive')", seconds: 5)
        let note = try browser.evaluate("document.getElementById('previewNote').textContent") as? String ?? ""
        #expect(note.contains("zooms 9–11 of 9–12"), "\(note)")
        try browser.wait(Self.loadedTile("world"), seconds: 5)
        #expect(try browser.evaluate("document.getElementById('areas').hidden") as? Bool == true, "no area product, no area tool")
        #expect(try browser.evaluate("document.getElementById('pwned2') === null") as? Bool == true, "the catalog's title is text")
        let requests = try #require(try browser.evaluate(Self.tileRequests) as? [[Any]])
        #expect(!requests.contains { $0[0] as? String == "world" && ($0[1] as? Int ?? 9) > 3 }, "the base map is asked only at its zooms")
        _ = try browser.evaluate("map.setZoom(14); 0")
        usleep(1_000_000)
        let zoomed = try #require(try browser.evaluate(Self.tileRequests) as? [[Any]])
        #expect(!zoomed.contains { $0[0] as? String == "peak" && ($0[1] as? Int ?? 99) > 11 }, "no paid zoom asked in the store's preview")
        try Self.screenshot(browser, "store-paid-preview")

        // Register on the page and buy: the purchase's message stays after the page redraws the product.
        _ = try browser.evaluate(
            """
            document.getElementById('email').value = 'shopper@example.com';
            document.getElementById('pw').value = 'correct-horse-battery';
            document.getElementById('reg').click()
            """)
        try browser.wait("document.getElementById('out')")
        _ = try browser.evaluate("show('test.peak').then(() => 0)")
        try browser.wait("document.getElementById('buy')")
        _ = try browser.evaluate("document.getElementById('buy').click()")
        try browser.wait("document.querySelector('#detail .status.purchased, #detail .status.installed')", seconds: 8)
        usleep(500_000)
        let message = try browser.evaluate("document.getElementById('msg').textContent") as? String ?? ""
        #expect(message.contains("Purchased") && message.contains("trailmap regions install test.peak"), "\(message)")
        // The message is in view (the top of the product column), not below the map.
        let box = try #require(
            try browser.evaluate(
                """
                (() => { const r = document.getElementById('msg').getBoundingClientRect(); return [r.top, r.bottom, innerHeight, \
                document.getElementById('msg').hidden ? 1 : 0]; })()
                """
            ) as? [Double])
        #expect(box[0] >= 0 && box[1] <= box[2] && box[1] > box[0] && box[3] == 0, "the message's box: \(box)")
        try Self.screenshot(browser, "store-purchased")

        // Signed in on the store, the viewer in the same tab shows the bought region at every zoom.
        _ = try browser.evaluate("location.href = '/?tileset=peak'; 0")
        usleep(500_000)
        try browser.wait(Self.loadedTile("peak", token: true), seconds: 8)
        #expect(try browser.evaluate("document.getElementById('in') === null") as? Bool == true, "the viewer shares the store's sign-in")
    }

    /// Bad values of the pages' serve options are refused with a message.
    @Test func servePageOptionsAreChecked() throws {
        let dir = TemporaryDirectory()
        for args in [["--preview-zooms", "99"], ["--preview-zooms", "-1"], ["--base-tileset", "../x"]] {
            let r = try CLIRunner.run(["serve", "--tiles", dir.path, "--port", "0"] + args)
            #expect(r.status != 0 && r.stderr.contains(args[0]), "\(args): \(r.status) \(r.stderr)")
        }
    }
}
