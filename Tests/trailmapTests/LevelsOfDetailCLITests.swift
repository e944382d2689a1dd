import Foundation
import Raster
import Testing
import TileGeometry
import TileStore
import TrailMapTestSupport

/// A bundle's levels of detail (`trailmap:layers`) through the CLI: `bundle inspect` and
/// `bundle verify`, `catalog publish`, and a real `trailmap serve` whose product detail
/// `regions show` and the store page list.
@Suite(.serialized, .blockingThreads) struct LevelsOfDetailCLITests {
    static let layers = [
        BundleLayer(name: "quads-30", title: "30-minute maps", kind: .series, minzoom: 8, maxzoom: 11, sources: ["q30-a.tif", "q30-b.tif"]),
        BundleLayer(
            name: "quads-7.5", title: "7.5-minute maps", kind: .series, minzoom: 12, maxzoom: 15,
            sources: (1...7).map { "q75-\($0).tif" }),
        BundleLayer(name: "trails", title: "Trails", kind: .overlay, minzoom: 8, maxzoom: 15, sources: ["trails.tif"])
    ]
    static let summary = "30-minute maps, zooms 8–11; 7.5-minute maps, zooms 12–15; Trails overlay, zooms 8–15"
    static let invalid = #"[{"name": "quads-30"}]"#
    static let invalidReason = #"metadata "trailmap:layers" is not a valid layer list: "title" is missing at layer 1"#
    static let box = GeoBounds(west: -105.7, south: 40.3, east: -105.6, north: 40.4)

    /// Writes `NAME.mbtiles` with one real 256-pixel PNG tile per zoom 8...15 and `layers` as the
    /// raw `trailmap:layers` value (nil: none recorded).
    @discardableResult
    static func bundle(in folder: String, _ name: String, layers: String?) throws -> String {
        let path = (folder as NSString).appendingPathComponent("\(name).mbtiles")
        let png = try PNGEncoder.encode(RGBAImage(width: 256, height: 256, fill: (40, 120, 60, 255)))
        var meta = BundleMetadata(name: name, bounds: box, minZoom: 8, maxZoom: 15)
        meta.attribution = "test data"
        if let layers { meta.extra[BundleLayer.metadataKey] = layers }
        return try TestBundle.write(
            (8...15).map { z in (tile: WebMercator.tile(lon: -105.65, lat: 40.35, zoom: z), data: png) },
            to: path, metadata: meta)
    }

    @Test func inspectShowsTheLevels() throws {
        let dir = TemporaryDirectory()
        let path = try Self.bundle(in: dir.path, "quads", layers: BundleLayer.encode(Self.layers))
        let text = try CLIRunner.run(["bundle", "inspect", path])
        #expect(text.status == 0, "\(text.stderr)")
        let lines = text.stdout.split(separator: "\n").map(String.init)
        let start = try #require(lines.firstIndex(of: "levels of detail (lower first):"), "\(text.stdout)")
        #expect(
            Array(lines[(start + 1)...(start + 3)]) == [
                #"  quads-30   series   zooms 8-11   "30-minute maps"   sources: q30-a.tif, q30-b.tif"#,
                #"  quads-7.5  series   zooms 12-15  "7.5-minute maps"  sources: q75-1.tif, q75-2.tif, q75-3.tif, q75-4.tif and 3 more"#,
                #"  trails     overlay  zooms 8-15   "Trails"           sources: trails.tif"#
            ])
        #expect(!text.stdout.contains("trailmap:layers:"), "the raw value gives way to the section")

        let json = try CLIRunner.run(["bundle", "inspect", path, "--json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let layers = try #require(object["layers"] as? [[String: Any]])
        #expect(layers.map { $0["name"] as? String } == ["quads-30", "quads-7.5", "trails"])
        #expect(layers.map { $0["kind"] as? String } == ["series", "series", "overlay"])
        #expect(layers.map { $0["minzoom"] as? Int } == [8, 12, 8] && layers.map { $0["maxzoom"] as? Int } == [11, 15, 15])
        #expect(layers[1]["sources"] as? [String] == Self.layers[1].sources, "JSON lists every source")
        #expect(layers.compactMap { $0["summary"] as? String }.joined(separator: "; ") == Self.summary)

        let verify = try CLIRunner.run(["bundle", "verify", path])
        #expect(verify.status == 0, "\(verify.stderr)")

        let old = try CLIRunner.run(["bundle", "inspect", try Self.bundle(in: dir.path, "old", layers: nil)])
        #expect(old.status == 0 && old.stdout.contains("levels of detail: none recorded"), "\(old.stdout)")
    }

    @Test func invalidLevelsAreAVerifyProblemAndAPublishErrorButInspectWorks() throws {
        let dir = TemporaryDirectory()
        let path = try Self.bundle(in: dir.path, "quads", layers: Self.invalid)

        let verify = try CLIRunner.run(["bundle", "verify", path])
        #expect(verify.status == 1 && verify.stderr.contains("  - \(Self.invalidReason)"), "\(verify.stderr)")

        let text = try CLIRunner.run(["bundle", "inspect", path])
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stdout.contains("levels of detail: invalid (\(Self.invalidReason))"), "\(text.stdout)")
        #expect(text.stdout.contains("  trailmap:layers: \(Self.invalid)") && text.stdout.contains("zoom levels:"))
        let json = try CLIRunner.run(["bundle", "inspect", path, "--json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(object["layers"] is NSNull && object["layersProblem"] as? String == Self.invalidReason)

        let products = #"""
            {"products": [{"productId": "quads", "title": "Quads", "category": "Parks", "price": {"amount": "1.99", "currency": "USD"},
              "bundle": "quads.mbtiles"}]}
            """#
        try products.write(toFile: dir.file("products.json"), atomically: true, encoding: .utf8)
        let publish = try CLIRunner.run([
            "catalog", "publish", "--products", dir.file("products.json"), "--tiles", dir.path,
            "--catalog", dir.file("catalog.sqlite")
        ])
        #expect(publish.status != 0, "\(publish.stdout)")
        #expect(publish.stderr.contains("bundle \(path): \(Self.invalidReason)"), "\(publish.stderr)")
    }

    /// A published catalog of one product whose bundle records `layers`, served by `trailmap serve`.
    final class Store {
        let dir = TemporaryDirectory()
        let process: ChildProcess
        let url: String

        init(title: String = "Rocky Mountain quads", layers: [BundleLayer]) throws {
            let tiles = dir.file("tiles")
            try FileManager.default.createDirectory(atPath: tiles, withIntermediateDirectories: true)
            try LevelsOfDetailCLITests.bundle(in: tiles, "quads", layers: BundleLayer.encode(layers))
            let products = [
                "products": [
                    [
                        "productId": "quads", "title": title, "category": "National Parks/Rocky Mountain",
                        "price": ["amount": "2.99", "currency": "USD"], "bundle": "quads.mbtiles"
                    ]
                ]
            ]
            try JSONSerialization.data(withJSONObject: products).write(to: URL(fileURLWithPath: dir.file("products.json")))
            let publish = try CLIRunner.run([
                "catalog", "publish", "--products", dir.file("products.json"), "--tiles", tiles,
                "--catalog", dir.file("catalog.sqlite")
            ])
            guard publish.status == 0 else { throw Failure(description: "publish: \(publish.stderr)") }
            let (p, out, _) = try CLIRunner.start([
                "serve", "--tiles", tiles, "--catalog", dir.file("catalog.sqlite"),
                "--port", "0", "--log-level", "error"
            ])
            process = p
            let line = String(decoding: out.fileHandleForReading.availableData, as: UTF8.self)
            guard let found = line.split(separator: " ").first(where: { $0.hasPrefix("http://") }) else {
                p.terminate()
                throw Failure(description: "no URL in \(line)")
            }
            url = String(found.hasSuffix("/") ? found.dropLast() : found)
        }

        deinit {
            process.terminate()
            process.waitUntilExit()
        }
    }

    struct Failure: Error, CustomStringConvertible { let description: String }

    @Test func regionsShowListsTheLevels() throws {
        let store = try Store(layers: Self.layers)
        let device = ["--server", store.url, "--state-dir", store.dir.file("state"), "--tiles", store.dir.file("device-tiles")]
        let show = try CLIRunner.run(["regions", "show", "quads"] + device)
        #expect(show.status == 0, "\(show.stderr)")
        #expect(
            show.stdout.hasSuffix(
                """
                Levels of detail:
                  30-minute maps, zooms 8–11
                  7.5-minute maps, zooms 12–15
                  Trails overlay, zooms 8–15

                """), "\(show.stdout)")

        let json = try CLIRunner.run(["regions", "show", "quads", "--json"] + device)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any], "\(json.stdout)")
        #expect(object["levelsSummary"] as? String == Self.summary)
        let levels = try #require(object["levels"] as? [[String: Any]])
        #expect(levels.map { $0["name"] as? String } == ["quads-30", "quads-7.5", "trails"])
        #expect(levels.map { $0["title"] as? String } == ["30-minute maps", "7.5-minute maps", "Trails"])
        #expect(levels.map { $0["minzoom"] as? Int } == [8, 12, 8] && levels.map { $0["maxzoom"] as? Int } == [11, 15, 15])
    }

    /// The store page, in headless Chromium, shows the levels on a product's page, escaped.
    @Test(.enabled(if: ViewerBrowserTests.chromium != nil || ViewerBrowserTests.required, "chromium is not installed"))
    func storePageShowsTheLevels() throws {
        let chromium = try #require(ViewerBrowserTests.chromium, "CI must install chromium")
        var layers = Self.layers
        layers[2].title = #"<img src=x onerror="document.title='owned'">Trails"#
        let store = try Store(layers: layers)
        let page = try CLIRunner.run(
            [
                "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--user-data-dir=\(store.dir.file("profile"))",
                "--virtual-time-budget=8000", "--dump-dom", store.url + "/store#quads"
            ], executable: chromium)
        let dom = page.stdout
        #expect(dom.contains("<h1>Rocky Mountain quads</h1>"), "the product page opened: \(dom.suffix(3000))")
        #expect(
            dom.contains(
                #"<p class="levels"><b>Levels of detail:</b> 30-minute maps, zooms 8–11; 7.5-minute maps, zooms 12–15; "#
                    + #"&lt;img src=x onerror="document.title='owned'"&gt;Trails overlay, zooms 8–15</p>"#), "\(dom.suffix(3000))")
        #expect(!dom.contains("<img src=\"x\""), "bundle text is never markup")
    }
}
