import Foundation
import Testing
import TileGeometry
import TrailMapTestSupport

/// The pages over terrain, in headless Chromium (real bundles built in the test run, a real
/// server on a socket): the layer switcher's classes (the hillshade an overlay, terrain tiles never
/// asked for as a picture), the shown tileset's links, a trail's profile chart. The DEM is an
/// ASCII grid made a GeoTIFF by gdal_translate: 3 km of UTM 13N rising 0.1 m a metre eastwards;
/// the trail climbs it 2 km east. Screenshots go where `RegionPagesBrowserTests`' do.
@Suite(.serialized, .blockingThreads) struct TerrainPagesBrowserTests {
    /// The tiles folder: `world` (the base map), `park` (a region), `hs` (hillshade), `elev`
    /// (Terrarium tiles), `ramp` (a trails overlay), `archive` (`park` as a PMTiles archive).
    final class Folder {
        let dir = TemporaryDirectory()
        var tiles: String { dir.file("tiles") }

        init() throws {
            try FileManager.default.createDirectory(atPath: tiles, withIntermediateDirectories: true)
            var grid = "ncols 100\nnrows 100\nxllcorner 450000\nyllcorner 4420000\ncellsize 30\nNODATA_value -9999\n"
            for _ in 0..<100 { grid += (0..<100).map { String(2000 + 3 * $0) }.joined(separator: " ") + "\n" }
            try grid.write(toFile: dir.file("dem.asc"), atomically: true, encoding: .utf8)
            let dem = dir.file("dem.tif")
            let made = try CLIRunner.run(
                ["-q", "-a_srs", "EPSG:32613", "-ot", "Int16", dir.file("dem.asc"), dem], executable: "/usr/bin/gdal_translate")
            guard made.status == 0 else { throw DevToolsPipe.Failure("gdal_translate: \(made.stderr)") }
            // UTM 13N 450500 E and 452500 E at 4421500 N (gdaltransform), and the middle between.
            try """
            {"type":"FeatureCollection","features":[{"type":"Feature","properties":{"name":"Ramp Trail","highway":"path","osm_id":"1"},
             "geometry":{"type":"LineString","coordinates":[[-105.579408752591,39.942175612611],[-105.5677,39.94223],
               [-105.55599935926,39.9422902396506]]}},
             {"type":"Feature","properties":{"name":"Far Trail","highway":"path","osm_id":"2"},
             "geometry":{"type":"LineString","coordinates":[[-105.45,39.90],[-105.44,39.905]]}}]}
            """.write(toFile: dir.file("ramp.geojson"), atomically: true, encoding: .utf8)
            let world = try TestSources.write(
                in: dir, name: "world", width: 240, height: 160,
                bounds: GeoBounds(west: -120, south: 30, east: -90, north: 50), color: TestSources.terrain)
            let park = try TestSources.write(
                in: dir, name: "park", width: 200, height: 200,
                bounds: GeoBounds(west: -105.60, south: 39.92, east: -105.53, north: 39.97), color: TestSources.terrain)
            let zooms = ["--minzoom", "11", "--maxzoom", "12"]
            let builds: [(String, [String])] = [
                ("world", ["--source", world, "--name", "World", "--minzoom", "2", "--maxzoom", "5"]),
                ("park", ["--source", park, "--name", "Park"] + zooms),
                ("hs", ["--dem", dem, "--hillshade", "--name", "Shaded relief"] + zooms),
                ("elev", ["--dem", dem, "--format", "terrarium", "--name", "Elevation"] + zooms),
                ("ramp", ["--trails", dir.file("ramp.geojson"), "--trails-preset", "osm", "--name", "Ramp trails"] + zooms)
            ]
            for (id, args) in builds {
                let r = try CLIRunner.run(
                    ["build"] + args + ["--out", (tiles as NSString).appendingPathComponent("\(id).mbtiles"), "--quiet"])
                guard r.status == 0 else { throw DevToolsPipe.Failure("build \(id): \(r.stderr)") }
            }
            let export = try CLIRunner.run([
                "bundle", "export", (tiles as NSString).appendingPathComponent("park.mbtiles"),
                "--pmtiles", (tiles as NSString).appendingPathComponent("archive.pmtiles")
            ])
            guard export.status == 0 else { throw DevToolsPipe.Failure("export: \(export.stderr)") }
        }

        /// `trailmap serve` on the folder without a store: its process and URL (no trailing slash).
        func serve() throws -> (ChildProcess, String) {
            let (p, out, _) = try CLIRunner.start(["serve", "--tiles", tiles, "--port", "0", "--log-level", "error"])
            let line = String(decoding: out.fileHandleForReading.availableData, as: UTF8.self)
            guard let found = line.split(separator: " ").first(where: { $0.hasPrefix("http://") }) else {
                p.terminate()
                throw DevToolsPipe.Failure("no URL in \(line)")
            }
            return (p, String(found.hasSuffix("/") ? found.dropLast() : found))
        }
    }

    /// The folder published as free products (`test.ID`) and served with a sandbox store.
    static func store(_ f: Folder) throws -> (ChildProcess, String) {
        let ids = ["world", "park", "hs", "elev", "ramp"]
        let products = ids.map {
            #"{"productId": "test.\#($0)", "title": "\#($0)", "category": "Terrain", "price": {"amount": "0", "currency": "USD"}, "#
                + #""bundle": "\#($0).mbtiles"}"#
        }
        try (#"{"products": ["# + products.joined(separator: ", ") + "]}").write(
            toFile: f.dir.file("products.json"), atomically: false, encoding: .utf8)
        let publish = try CLIRunner.run([
            "catalog", "publish", "--products", f.dir.file("products.json"), "--tiles", f.tiles, "--catalog", f.dir.file("catalog.sqlite")
        ])
        guard publish.status == 0 else { throw DevToolsPipe.Failure("publish: \(publish.stderr)") }
        return try RegionsEndToEndTests.StoreServer.serve(
            tiles: f.tiles, catalog: f.dir.file("catalog.sqlite"), sandbox: f.dir.file("sandbox"))
    }

    /// What the viewer's trails panel shows and what its store requests answered, for a failure's message.
    static func trailsPanel(_ browser: DevToolsPipe) -> String {
        let state = try? browser.evaluate(
            """
            JSON.stringify({hidden: document.getElementById('trails').hidden, found: document.getElementById('found').textContent,
              requests: performance.getEntriesByType('resource').filter(e => e.name.includes('/api/'))
                .map(e => e.name.replace(location.origin, '') + ' ' + e.responseStatus + ' after ' + Math.round(e.startTime) + ' ms')})
            """)
        return "trails panel: \(state as? String ?? "unreadable")"
    }

    static func stop(_ p: ChildProcess) {
        guard p.isRunning else { return }
        p.terminate()
        p.waitUntilExit()
    }

    /// Every `/tiles/{id}/...` URL the page has fetched (images and fetches alike).
    static func fetched(_ id: String) -> String {
        "performance.getEntriesByType('resource').map(e => e.name).filter(u => u.includes('/tiles/\(id)/'))"
    }

    @Test(.enabled(if: ViewerBrowserTests.chromium != nil || ViewerBrowserTests.required, "chromium is not installed"))
    func hillshadeIsAnOverlayAndTerrainTilesAreNeverAPicture() throws {
        let chromium = try #require(ViewerBrowserTests.chromium, "CI must install chromium")
        let f = try Folder()
        let (server, url) = try f.serve()
        defer { Self.stop(server) }

        // `GET /tiles` classes every tileset; the base map is a region, never the relief or the terrain data.
        let list = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(string: url + "/tiles")!)) as? [String: Any]
        let classes = Dictionary(
            uniqueKeysWithValues: (list?["tilesets"] as? [[String: Any]] ?? []).map {
                ($0["id"] as? String ?? "", $0["layer"] as? String ?? "")
            })
        #expect(
            classes == ["world": "base", "park": "region", "archive": "region", "hs": "hillshade", "elev": "terrain", "ramp": "trails"],
            "\(classes)")
        #expect(list?["base"] as? String == "world")

        let browser = try DevToolsPipe(chromium: chromium, profile: f.dir.file("profile"))
        try browser.open(url + "/?tileset=park")
        try browser.wait(RegionPagesBrowserTests.loadedTile("park"), seconds: 8)
        let overlays =
            try browser.evaluate(
                "[...document.querySelectorAll('.leaflet-control-layers-overlays [data-layer]')].map(e => [e.dataset.layer, e.textContent])"
            ) as? [[String]] ?? []
        #expect(overlays.contains(["hillshade", "Hillshade: Shaded relief"]), "\(overlays)")
        #expect(overlays.contains(["trails", "Trails: Ramp trails"]) && overlays.contains(["region", "Park"]), "\(overlays)")
        #expect(
            !overlays.contains { $0[0] == "terrain" || $0[1].contains("Elevation") }, "terrain data is not a picture layer: \(overlays)")
        let base = try browser.evaluate("document.querySelector('.leaflet-control-layers-base [data-layer=base]').textContent") as? String
        #expect(base == "Base map: World")

        // Turned on, the hillshade lies over the region with an opacity.
        _ = try browser.evaluate(
            """
            [...document.querySelectorAll('.leaflet-control-layers-overlays label')].find(l => \
            l.querySelector('[data-layer=hillshade]')).querySelector('input').click(); 0
            """
        )
        try browser.wait(RegionPagesBrowserTests.loadedTile("hs"), seconds: 8)
        let pane = try #require(
            try browser.evaluate(
                """
                (() => { const h = document.querySelector('.layer-hillshade'), r = document.querySelector('.layer-region');
                  return [Number(getComputedStyle(h).opacity), Number(h.style.zIndex), Number(r.style.zIndex)]; })()
                """) as? [Double])
        #expect(pane[0] > 0 && pane[0] < 1 && pane[1] > pane[2], "hillshade opacity and z-index over the region: \(pane)")
        try RegionPagesBrowserTests.screenshot(browser, "viewer-hillshade-overlay")

        // The terrain tileset chosen: its coverage outlined and a note, never one of its tiles fetched.
        _ = try browser.evaluate("select.value = 'elev'; select.onchange(); 0")
        try browser.wait("document.getElementById('msg').textContent.includes('elevation data')", seconds: 8)
        _ = try browser.evaluate("map.setZoom(12); 0")
        usleep(1_500_000)
        let terrainFetched = try browser.evaluate(Self.fetched("elev")) as? [String] ?? ["?"]
        #expect(terrainFetched.isEmpty, "terrain tiles asked for: \(terrainFetched.prefix(3))")
        #expect(try browser.evaluate("document.querySelectorAll('img[src*=\"/tiles/elev/\"]').length") as? Int == 0)
        #expect(
            try browser.evaluate("document.querySelector('path.leaflet-interactive, .leaflet-overlay-pane path') !== null") as? Bool
                == true,
            "the terrain's coverage is outlined")
        try RegionPagesBrowserTests.screenshot(browser, "viewer-terrain-data")
    }

    @Test(.enabled(if: ViewerBrowserTests.chromium != nil || ViewerBrowserTests.required, "chromium is not installed"))
    func theShownTilesetsLinksAnswer() throws {
        let chromium = try #require(ViewerBrowserTests.chromium, "CI must install chromium")
        let f = try Folder()
        let (server, url) = try f.serve()
        defer { Self.stop(server) }
        let browser = try DevToolsPipe(chromium: chromium, profile: f.dir.file("profile"))
        // Each link's href and what a fetch of it answers (status, content type, first bytes).
        let links = """
            (async () => { const out = {};
              for (const id of ['tilejson', 'wmts', 'pmtiles']) {
                const a = document.getElementById(id);
                if (a.hidden || !a.getAttribute('href')) { out[id] = null; continue; }
                const r = await fetch(a.href), b = new Uint8Array(await r.arrayBuffer());
                out[id] = [a.getAttribute('href'), r.status, r.headers.get('content-type'), String.fromCharCode(...b.slice(0, 7))];
              }
              const ranged = await fetch('/tiles/archive.pmtiles', {headers: {Range: 'bytes=0-126'}});
              out.range = [ranged.status, ranged.headers.get('content-range'), (await ranged.arrayBuffer()).byteLength];
              return out; })()
            """

        // The archive: its TileJSON, the WMTS capabilities, the .pmtiles file itself (whole and by range).
        try browser.open(url + "/?tileset=archive")
        try browser.wait(
            "document.getElementById('status') && document.getElementById('status').textContent.startsWith('Park')", seconds: 8)
        try browser.wait("!document.getElementById('pmtiles').hidden", seconds: 5)
        let a = try #require(try browser.evaluate(links) as? [String: Any])
        let tilejson = a["tilejson"] as? [Any], wmts = a["wmts"] as? [Any], pmtiles = a["pmtiles"] as? [Any]
        #expect(tilejson?[0] as? String == "/tiles/archive.json" && tilejson?[1] as? Int == 200, "\(a)")
        #expect(wmts?[0] as? String == "/wmts/1.0.0/WMTSCapabilities.xml" && wmts?[1] as? Int == 200, "\(a)")
        #expect(
            pmtiles?[0] as? String == "/tiles/archive.pmtiles" && pmtiles?[1] as? Int == 200 && pmtiles?[3] as? String == "PMTiles", "\(a)")
        #expect(pmtiles?[2] as? String == "application/vnd.pmtiles")
        let size = try FileManager.default.attributesOfItem(atPath: f.tiles + "/archive.pmtiles")[.size] as? Int ?? 0
        #expect(a["range"] as? [AnyHashable] == [206, "bytes 0-126/\(size)", 127], "\(a["range"] ?? "")")
        #expect((try browser.evaluate("document.getElementById('wmts').title") as? String ?? "").hasSuffix("(layer archive)"))
        try RegionPagesBrowserTests.screenshot(browser, "viewer-links-pmtiles")

        // An MBTiles bundle has no archive: no link, and the route says so.
        _ = try browser.evaluate("select.value = 'park'; select.onchange(); 0")
        try browser.wait("document.getElementById('tilejson').getAttribute('href') === '/tiles/park.json'", seconds: 5)
        let b = try #require(try browser.evaluate(links) as? [String: Any])
        #expect(b["pmtiles"] is NSNull && (b["tilejson"] as? [Any])?[1] as? Int == 200, "\(b)")
        #expect(try browser.evaluate("document.getElementById('nopmtiles').hidden") as? Bool == false)
        let missing =
            try browser.evaluate("fetch('/tiles/park.pmtiles').then(async r => [r.status, (await r.json()).error.code])") as? [AnyHashable]
        #expect(missing == [404, "no_archive"])
    }

    @Test(.enabled(if: ViewerBrowserTests.chromium != nil || ViewerBrowserTests.required, "chromium is not installed"))
    func aTrailsProfileChartInTheViewerAndTheStore() throws {
        let chromium = try #require(ViewerBrowserTests.chromium, "CI must install chromium")
        let f = try Folder()
        let (server, url) = try Self.store(f)
        defer { Self.stop(server) }
        let browser = try DevToolsPipe(chromium: chromium, profile: f.dir.file("profile"))
        // The chart's figures and the API's, for the trail `id`.
        func compare(_ id: String) throws -> [String: Any] {
            try #require(
                try browser.evaluate(
                    """
                    (async () => { const api = await (await fetch('/api/v1/trails/\(id)/profile')).json();
                      const box = document.getElementById('profile'), a = box.querySelector('.ascent');
                      return {api: api.ascentM, shown: Number(a.dataset.value), text: a.textContent,
                              points: (box.querySelector('svg path.profile-line').getAttribute('d').match(/[ML]/g) || []).length,
                              samples: api.samples.length, labels: [...box.querySelectorAll('svg text')].map(t => t.textContent)}; })()
                    """) as? [String: Any])
        }

        // The viewer: a trail search, the result's Profile button, the chart. (The first search
        // waited more than 30 s once, on a CI machine loaded by the rest of the suite.)
        try browser.open(url + "/?tileset=park&trails=q%3Dramp")
        do { try browser.wait("document.querySelector('#found .prof')", seconds: 90) } catch {
            throw DevToolsPipe.Failure("\(error); \(Self.trailsPanel(browser))")
        }
        let trail = try #require(try browser.evaluate("document.querySelector('#found .prof').dataset.id") as? String)
        _ = try browser.evaluate("document.querySelector('#found .prof').click(); 0")
        try browser.wait("document.querySelector('#profile svg path.profile-line')", seconds: 8)
        let v = try compare(trail)
        let ascent = try #require(v["api"] as? Double)
        #expect(abs(ascent - 200) < 10, "the ramp's 2 km at 10 %: \(ascent) m")
        #expect(v["shown"] as? Double == ascent && v["text"] as? String == "Ascent \(Int(ascent.rounded())) m", "\(v)")
        #expect(v["points"] as? Int == v["samples"] as? Int, "one point a sample: \(v)")
        let labels = v["labels"] as? [String] ?? []
        #expect(
            labels.contains("distance") && labels.contains("elevation") && labels.contains { $0.hasSuffix(" km") }
                && labels.contains { $0.hasSuffix(" m") }, "\(labels)")
        #expect((try browser.evaluate("document.querySelector('#profile .grade').textContent") as? String ?? "").hasPrefix("Max grade 1"))
        try RegionPagesBrowserTests.screenshot(browser, "viewer-trail-profile")

        // A trail outside every terrain: the API's refusal as a message, asked once.
        _ = try browser.evaluate("findTrails('q=far').then(() => 0)")
        try browser.wait("document.querySelector('#found .prof')", seconds: 8)
        _ = try browser.evaluate("document.querySelector('#found .prof').click(); 0")
        try browser.wait("document.querySelector('#profile .profile-error')", seconds: 8)
        let error = try browser.evaluate("document.querySelector('#profile .profile-error').textContent") as? String ?? ""
        let chartLeft = try browser.evaluate("!!document.querySelector('#profile svg')") as? Bool
        #expect(error.hasPrefix("No profile of Far Trail: ") && chartLeft == false, "\(error)")
        usleep(1_000_000)
        let asked = try browser.evaluate("performance.getEntriesByType('resource').filter(e => e.name.includes('/profile')).length") as? Int
        #expect(asked == 2 + 1, "one request a click (and the comparison's): \(asked ?? -1)")
        try RegionPagesBrowserTests.screenshot(browser, "viewer-trail-profile-error")

        // The store: the trails product's page names its longest trail; a click draws the same chart.
        try browser.open(url + "/store#test.ramp")
        try browser.wait("document.querySelector('#detail a.trail-profile')", seconds: 90)
        _ = try browser.evaluate(
            "[...document.querySelectorAll('#detail a.trail-profile')].find(a => a.textContent === 'Ramp Trail').click(); 0")
        try browser.wait("document.querySelector('#profile svg path.profile-line')", seconds: 8)
        let s = try compare(trail)
        #expect(s["shown"] as? Double == ascent && s["text"] as? String == "Ascent \(Int(ascent.rounded())) m", "\(s)")
        try RegionPagesBrowserTests.screenshot(browser, "store-trail-profile")
    }
}
