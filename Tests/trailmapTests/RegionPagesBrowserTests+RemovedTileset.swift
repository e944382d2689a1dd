import Foundation
import Testing
import TrailMapTestSupport

/// The store page while the tileset of the product it shows is removed from the served folder:
/// the next tiles the preview asks for end in a message in the page (the coverage and the base
/// map stay), not in a blank preview or a loop of failing requests and console errors.
extension RegionPagesBrowserTests {
    @Test(.enabled(if: ViewerBrowserTests.chromium != nil || ViewerBrowserTests.required, "chromium is not installed"))
    func storePreviewOfARemovedTilesetEndsInAMessage() throws {
        let chromium = try #require(ViewerBrowserTests.chromium, "CI must install chromium")
        let c = try Catalog()
        let browser = try DevToolsPipe(chromium: chromium, profile: c.dir.file("profile"))
        try browser.open(c.url + "/store#test.alps")
        try browser.watchConsole()
        // The free region's preview: its tiles at every zoom (9-11) over the base map.
        try browser.wait(Self.loadedTile("alps"), seconds: 8)
        try browser.wait("document.getElementById('previewNote').textContent.includes('every zoom')", seconds: 5)
        let loaded = try #require(try browser.evaluate(Self.tileRequests) as? [[Any]])
        let zoomsAsked = Set(loaded.filter { $0[0] as? String == "alps" }.compactMap { $0[1] as? Int })
        // A zoom of the region whose tiles the browser has not asked for (so none comes from its cache).
        let fresh = try #require((9...11).first { !zoomsAsked.contains($0) }, "zooms asked: \(zoomsAsked)")
        _ = try browser.evaluate("0")
        let errorsBefore = browser.consoleErrors.count

        // The bundle goes; the server notices within a second or two; the map asks for new tiles.
        try FileManager.default.removeItem(atPath: c.dir.file("tiles") + "/alps.mbtiles")
        usleep(2_000_000) // the server rescans its folder every second
        let requestsBefore = (try browser.evaluate(Self.tileRequests + ".length") as? Int) ?? 0
        _ = try browser.evaluate("map.setZoom(\(fresh)); 0")
        try browser.wait("document.getElementById('previewNote').textContent.includes('removed')", seconds: 8)
        let note = try browser.evaluate("document.getElementById('previewNote').textContent") as? String ?? ""
        #expect(note.contains("No preview") && note.contains("tileset alps was removed"), "\(note)")
        let visible = try #require(
            try browser.evaluate(
                """
                (() => {
                  const r = document.getElementById('previewNote').getBoundingClientRect();
                  return [r.width, r.height, r.bottom, innerHeight];
                })()
                """
            ) as? [Double])
        #expect(visible[0] > 0 && visible[1] > 0 && visible[2] <= visible[3], "the note is on screen: \(visible)")
        // The map is not blank: the coverage is drawn, the base map's tiles are there.
        #expect(try browser.evaluate("document.querySelector('#map path.leaflet-interactive') !== null") as? Bool == true)
        try browser.wait(Self.loadedTile("world"), seconds: 5)

        // Bounded: a few failed tiles and their console lines, then nothing more while the page sits.
        let requestsAtMessage = (try browser.evaluate(Self.tileRequests + ".length") as? Int) ?? 0
        _ = try browser.evaluate("0")
        let errorsAtMessage = browser.consoleErrors.count
        _ = try browser.evaluate("map.panBy([200, 100], {animate: false}); 0")
        usleep(1_500_000)
        let requestsAfter = (try browser.evaluate(Self.tileRequests + ".length") as? Int) ?? 0
        _ = try browser.evaluate("0")
        let errors = Array(browser.consoleErrors.dropFirst(errorsBefore))
        #expect(requestsAtMessage - requestsBefore < 40, "\(requestsAtMessage - requestsBefore) tile requests until the message")
        #expect(requestsAfter - requestsAtMessage < 5, "no loop of failing requests: \(requestsAfter - requestsAtMessage) more")
        #expect(errors.count < 40, "\(errors.count) console errors: \(errors.prefix(5))")
        #expect(browser.consoleErrors.count - errorsAtMessage < 5, "no loop of console errors: \(errors.suffix(5))")
        #expect(!errors.contains { $0.hasPrefix("exception:") }, "no uncaught exception: \(errors.filter { $0.hasPrefix("exception:") })")
        try Self.screenshot(browser, "store-tileset-removed")
        print("store, tileset removed: \(requestsAfter - requestsBefore) tile requests, \(errors.count) console errors after the removal")
    }
}
