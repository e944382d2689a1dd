import Foundation
import Testing
import TileGeometry
import TrailMapTestSupport

/// The viewer, in headless Chromium, on a folder that holds only a `.pmtiles` archive: it shows
/// the archive's tiles, and links its TileJSON and the WMTS capabilities.
extension ViewerBrowserTests {
    @Test(.enabled(if: chromium != nil || required, "chromium is not installed"))
    func viewerShowsAnArchiveAndLinksTileJSONAndWMTS() throws {
        let chromium = try #require(Self.chromium, "CI must install chromium")
        let dir = TemporaryDirectory()
        let tiles = dir.file("tiles")
        try FileManager.default.createDirectory(atPath: tiles, withIntermediateDirectories: true)
        let src = try TestSources.write(
            in: dir, name: "s", width: 180, height: 120,
            bounds: GeoBounds(west: -110, south: 36, east: -101, north: 42), color: TestSources.terrain)
        let bundle = dir.file("archived.mbtiles")
        #expect(
            try CLIRunner.run([
                "build", "--source", src, "--name", "Archived", "--minzoom", "2", "--maxzoom", "6", "--out", bundle, "--quiet"
            ]).status == 0)
        let export = try CLIRunner.run([
            "bundle", "export", bundle, "--pmtiles", (tiles as NSString).appendingPathComponent("archived.pmtiles")
        ])
        #expect(export.status == 0, "\(export.stderr)")

        let (server, out, err) = try CLIRunner.start(["serve", "--tiles", tiles, "--port", "0", "--log-level", "info"])
        defer {
            server.terminate()
            server.waitUntilExit()
        }
        let firstLine = String(decoding: out.fileHandleForReading.availableData, as: UTF8.self)
        let url = try #require(firstLine.split(separator: " ").first { $0.hasPrefix("http://") }.map(String.init), "\(firstLine)")
        let browser = try CLIRunner.run(
            [
                "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--user-data-dir=\(dir.file("profile"))",
                "--virtual-time-budget=8000", "--dump-dom", url + "?tileset=archived"
            ], executable: chromium)
        #expect(browser.stdout.contains("leaflet-tile"), "the page made Leaflet tile elements")
        #expect(browser.stdout.contains(#"id="tilejson" href="/tiles/archived.json""#), "the TileJSON link follows the shown tileset")
        #expect(browser.stdout.contains(#"id="wmts" href="/wmts/1.0.0/WMTSCapabilities.xml""#))
        #expect(browser.stdout.contains("/wmts/1.0.0/WMTSCapabilities.xml\"") && browser.stdout.contains("Archived · zoom 2–6"))

        server.terminate()
        server.waitUntilExit()
        let log = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let hits = log.split(separator: "\n").filter { $0.contains("GET /tiles/archived/") && $0.contains(" 200 ") }
        #expect(hits.count >= 2, "tile requests in the access log:\n\(log.suffix(2000))")
    }
}
