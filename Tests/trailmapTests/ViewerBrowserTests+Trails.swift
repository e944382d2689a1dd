import Foundation
import Testing
import TrailMapTestSupport

/// The store page's and the viewer's trail search in headless Chromium: results listed with the regions holding
/// them and drawn on the map (the free region's trails as lines), and a region's page counting
/// its trails. The trails bundle is built by `trailmap build --trails` from a GeoJSON file.
extension ViewerBrowserTests {
    @Test(.enabled(if: chromium != nil || required, "chromium is not installed"))
    func storePageSearchesTrailsAndDrawsThem() throws {
        let chromium = try #require(Self.chromium, "CI must install chromium")
        let dir = TemporaryDirectory()
        let tiles = dir.file("tiles")
        try FileManager.default.createDirectory(atPath: tiles, withIntermediateDirectories: true)
        let lines = dir.file("park.geojson")
        try """
        {"type":"FeatureCollection","features":[
        {"type":"Feature","properties":{"name":"Bear Lake Trail","highway":"path","sac_scale":"hiking","osm_id":"1"},
         "geometry":{"type":"LineString","coordinates":[[-105.645,40.312],[-105.640,40.315],[-105.635,40.314]]}},
        {"type":"Feature","properties":{"name":"Longs Peak Trail","highway":"path","sac_scale":"difficult_alpine_hiking","osm_id":"2"},
         "geometry":{"type":"LineString","coordinates":[[-105.560,40.275],[-105.580,40.265],[-105.615,40.255]]}}
        ]}
        """.write(toFile: lines, atomically: true, encoding: .utf8)
        let built = try CLIRunner.run([
            "build", "--trails", lines, "--trails-preset", "osm", "--name", "Park trails", "--minzoom", "4",
            "--maxzoom", "8", "--out", (tiles as NSString).appendingPathComponent("park.mbtiles"), "--quiet"
        ])
        #expect(built.status == 0, "\(built.stderr)")
        let products =
            #"{"products": [{"productId": "test.park", "title": "Park trails", "category": "Parks", "#
            + #""price": {"amount": "0", "currency": "USD"}, "bundle": "park.mbtiles"}]}"#
        try products.write(toFile: dir.file("products.json"), atomically: false, encoding: .utf8)
        let publish = try CLIRunner.run([
            "catalog", "publish", "--products", dir.file("products.json"), "--tiles", tiles,
            "--catalog", dir.file("catalog.sqlite")
        ])
        #expect(publish.status == 0, "\(publish.stderr)")
        let (server, out, _) = try CLIRunner.start([
            "serve", "--tiles", tiles, "--port", "0", "--log-level", "error",
            "--catalog", dir.file("catalog.sqlite")
        ])
        defer {
            server.terminate()
            server.waitUntilExit()
        }
        let firstLine = String(decoding: out.fileHandleForReading.availableData, as: UTF8.self)
        let url = try #require(firstLine.split(separator: " ").first { $0.hasPrefix("http://") }.map(String.init), "\(firstLine)")
        func dom(_ page: String, shot: String) throws -> String {
            let args = [
                "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--user-data-dir=\(dir.file("profile-\(shot)"))",
                "--virtual-time-budget=8000"
            ]
            // A screenshot as a test artifact ($TRAILMAP_TEST_ARTIFACTS, default /tmp/trailmap-test-artifacts), then the DOM.
            let artifacts = ProcessInfo.processInfo.environment["TRAILMAP_TEST_ARTIFACTS"] ?? "/tmp/trailmap-test-artifacts"
            try FileManager.default.createDirectory(atPath: artifacts, withIntermediateDirectories: true)
            _ = try CLIRunner.run(
                args + ["--window-size=1280,800", "--screenshot=\(artifacts)/\(shot).png", url + page], executable: chromium)
            return try CLIRunner.run(args + ["--dump-dom", url + page], executable: chromium).stdout
        }
        let search = try dom("store#trails=q=bear%20lake%20trial", shot: "trail-search")
        #expect(
            search.contains("1 trail") && search.contains("Bear Lake Trail") && search.contains("Park trails"), "\(search.suffix(2000))")
        #expect(!search.contains("Longs Peak Trail"))
        #expect(search.contains("leaflet-interactive"), "the trail is drawn on the map")
        let viewer = try dom("?trails=q%3Dlongs", shot: "trail-viewer")
        #expect(
            viewer.contains("Longs Peak Trail") && viewer.contains("expert") && viewer.contains("leaflet-interactive"),
            "\(viewer.suffix(2000))")
        let region = try dom("store#test.park", shot: "trail-region")
        #expect(region.contains("2 trails") && region.contains("1 easy") && region.contains("1 expert"), "\(region.suffix(2000))")
    }
}
