import Foundation
import Testing
import TileGeometry
import TrailMapTestSupport

/// Headless Chromium decodes every tile of a jpg bundle (JPEG, and PNG at the edges) and of a
/// WebP bundle, from the server and from `bundle export`'s folder on a plain static file server
/// (Python's `http.server`, which labels a `.jpg` file `image/jpeg` whatever its bytes).
extension ViewerBrowserTests {
    /// A page showing `?tiles=TEMPLATE` inside the variant box at the top zoom, counting tiles
    /// loaded, decoded (naturalWidth 256), decoded in the edge column `?edge=X`, and failed.
    static let decodingPage = """
        <!DOCTYPE html>
        <html><head><meta charset="utf-8"><link rel="stylesheet" href="file:///usr/share/javascript/leaflet/leaflet.css"></head>
        <body style="margin:0"><div id="map" style="width:1024px;height:768px"></div><div id="result">none</div>
        <script src="file:///usr/share/javascript/leaflet/leaflet.js"></script>
        <script>
        const q = new URLSearchParams(location.search);
        const edge = Number(q.get('edge'));
        const box = L.latLngBounds([[36, -110], [42, -101]]);
        const map = L.map('map', {fadeAnimation: false}).setView(box.getCenter(), Number(q.get('zoom')));
        let loaded = 0, decoded = 0, edges = 0, failed = 0;
        const show = () => {
          document.getElementById('result').textContent = `loaded=${loaded} decoded=${decoded} edges=${edges} failed=${failed}`;
        };
        L.tileLayer(q.get('tiles'), {bounds: box, minZoom: 0, maxZoom: 22})
          .on('tileload', e => { loaded++; if (e.tile.naturalWidth === 256) { decoded++; if (e.coords.x === edge) edges++; } show(); })
          .on('tileerror', () => { failed++; show(); })
          .addTo(map);
        </script></body></html>
        """

    /// Loads `template` in the decoding page; returns its result line.
    static func decode(_ template: String, chromium: String, in dir: TemporaryDirectory, name: String) throws -> String {
        let z = VariantTiles.zooms.upperBound
        let edge = TileRange(bounds: VariantTiles.box, zoom: z).minX
        let page = dir.file("decode.html")
        try decodingPage.write(toFile: page, atomically: false, encoding: .utf8)
        var query = URLComponents()
        query.queryItems = [
            URLQueryItem(name: "tiles", value: template), URLQueryItem(name: "edge", value: String(edge)),
            URLQueryItem(name: "zoom", value: String(z))
        ]
        let browser = try CLIRunner.run(
            [
                "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--user-data-dir=\(dir.file("profile-\(name)"))",
                "--allow-file-access-from-files", "--window-size=1024,800", "--virtual-time-budget=8000", "--dump-dom",
                "file://\(page)?\(query.percentEncodedQuery ?? "")"
            ], executable: chromium)
        let result = browser.stdout.components(separatedBy: "<div id=\"result\">").dropFirst().first?.components(separatedBy: "<").first
        return result ?? "no result: \(browser.stdout.suffix(500)) \(browser.stderr.suffix(500))"
    }

    @Test(.enabled(if: chromium != nil || required, "chromium is not installed"))
    func browsersDecodeJpgAndWebPTilesFromTheServerAndAnExport() throws {
        let chromium = try #require(Self.chromium, "CI must install chromium")
        let dir = TemporaryDirectory()
        let tiles = dir.file("tiles")
        try FileManager.default.createDirectory(atPath: tiles, withIntermediateDirectories: true)
        for variant in [TileVariant.jpg, .webpLossy] {
            try TestBundle.variant(variant, to: (tiles as NSString).appendingPathComponent("\(variant).mbtiles"))
        }
        let export = try CLIRunner.run([
            "bundle", "export", (tiles as NSString).appendingPathComponent("jpg.mbtiles"), "--dir", dir.file("static/jpg")
        ])
        #expect(export.status == 0, "\(export.stderr)")

        let (server, out, _) = try CLIRunner.start(["serve", "--tiles", tiles, "--port", "0"])
        defer {
            server.terminate()
            server.waitUntilExit()
        }
        let firstLine = String(decoding: out.fileHandleForReading.availableData, as: UTF8.self)
        let url = try #require(firstLine.split(separator: " ").first { $0.hasPrefix("http://") }.map(String.init), "\(firstLine)")
        let (files, filesOut, _) = try CLIRunner.start(
            executable: "/usr/bin/env",
            ["python3", "-u", "-m", "http.server", "0", "--bind", "127.0.0.1", "--directory", dir.file("static")])
        defer {
            // SIGKILL: the child inherits the test thread's signal mask, where SIGTERM may be
            // blocked, and Python (unlike `trailmap serve`) then never sees a terminate().
            kill(files.processIdentifier, SIGKILL)
            files.waitUntilExit()
        }
        let served = String(decoding: filesOut.fileHandleForReading.availableData, as: UTF8.self)
        let port = try #require(served.components(separatedBy: " port ").dropFirst().first?.split(separator: " ").first, "\(served)")

        // Every tile of the box at the top zoom decodes, the partly transparent west column's too.
        let range = TileRange(bounds: VariantTiles.box, zoom: VariantTiles.zooms.upperBound)
        #expect(range.maxX > range.minX, "opaque and edge tiles are both in view")
        let expected = "loaded=\(range.count) decoded=\(range.count) edges=\(range.maxY - range.minY + 1) failed=0"
        #expect(try Self.decode(url + "tiles/jpg/{z}/{x}/{y}.jpg", chromium: chromium, in: dir, name: "server-jpg") == expected)
        #expect(try Self.decode(url + "tiles/webp-lossy/{z}/{x}/{y}.webp", chromium: chromium, in: dir, name: "server-webp") == expected)
        #expect(
            try Self.decode("http://127.0.0.1:\(port)/jpg/{z}/{x}/{y}.jpg", chromium: chromium, in: dir, name: "static-jpg") == expected)
    }
}
