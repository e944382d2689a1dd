import Foundation
import Testing
import TrailMapTestSupport

/// The store page's area tool in headless Chromium (driven over the DevTools protocol): register,
/// open an area offer, click the map for the center, quote, buy; the page shows the area's id,
/// and the account owns the area.
@Suite(.serialized, .blockingThreads) struct StorePageAreaBrowserTests {
    @Test(.enabled(if: ViewerBrowserTests.chromium != nil || ViewerBrowserTests.required, "chromium is not installed"))
    func clickTheMapQuoteAndBuy() throws {
        let chromium = try #require(ViewerBrowserTests.chromium, "CI must install chromium")
        let store = try AreaCommandsTests.AreaStore()
        defer { store.stop() }
        let browser = try DevToolsPipe(chromium: chromium, profile: store.dir.file("profile"))
        try browser.open(store.url + "/store")
        try browser.wait("window.L && document.getElementById('reg') && document.querySelector('.card')")

        // Register (and log in) through the page's own form.
        _ = try browser.evaluate(
            """
            document.getElementById('email').value = 'walker@example.com';
            document.getElementById('pw').value = 'correct-horse-battery';
            document.getElementById('reg').click()
            """)
        try browser.wait("document.getElementById('out')")

        // The offer's card shows its cap; opening it shows the area tool over its coverage.
        let card = try browser.evaluate("document.querySelector('.card[data-id=\"\(AreaCommandsTests.offer)\"]').textContent") as? String
        #expect(card?.contains("0.99 USD per area · up to 9.5 MB") == true, "\(card ?? "")")
        _ = try browser.evaluate("document.querySelector('.card[data-id=\"\(AreaCommandsTests.offer)\"]').click()")
        try browser.wait("document.getElementById('quoteButton') && document.getElementById('map').classList.contains('picking')")
        #expect(try browser.evaluate("document.getElementById('offer').value") as? String == AreaCommandsTests.offer)
        // The offer's preview: its source's lowest zooms on the map (the source is sold only by the area).
        try browser.wait("document.querySelector('.store-preview img.leaflet-tile-loaded')", seconds: 8)
        let previewNote = try browser.evaluate("document.getElementById('previewNote').textContent") as? String ?? ""
        #expect(previewNote.hasPrefix("Preview on the map: zooms "), "\(previewNote)")
        try RegionPagesBrowserTests.screenshot(browser, "store-area-preview")

        // A click in the middle of the map picks the center.
        let rect = try #require(
            try browser.evaluate(
                """
                (() => {
                  const r = document.getElementById('map').getBoundingClientRect();
                  return [r.left + r.width / 2, r.top + r.height / 2];
                })()
                """) as? [Double])
        try browser.click(x: rect[0], y: rect[1])
        try browser.wait("document.getElementById('center').textContent.startsWith('Center: ')")
        let center = try #require(try browser.evaluate("[area.center.lat, area.center.lng]") as? [Double])
        #expect((37...41).contains(center[0]) && (-109 ... -102).contains(center[1]), "the click fell inside the coverage: \(center)")

        _ = try browser.evaluate("document.getElementById('radius').value = '20'; document.getElementById('quoteButton').click()")
        try browser.wait("document.getElementById('quote')")
        let q = try #require(try browser.evaluate("quote") as? [String: Any])
        let quoteId = try #require(q["quoteId"] as? String)
        let size = try #require(q["size"] as? Int)
        let bounds = try #require(q["bounds"] as? [Double])
        #expect(bounds[0] < center[1] && center[1] < bounds[2] && bounds[1] < center[0] && center[0] < bounds[3], "\(bounds) \(center)")
        let shown = try #require(try browser.evaluate("document.getElementById('quote').textContent") as? String)
        #expect(
            shown.contains("(\(size) bytes, ") && shown.contains("Zooms: 3–9") && shown.contains("0.99 USD")
                && shown.contains("Buy before"),
            "\(shown)")
        #expect(try browser.evaluate("document.getElementById('quote').dataset.quote") as? String == quoteId)

        // Buy: a sandbox Consumable, then POST /areas; the page shows the area's id.
        _ = try browser.evaluate("document.getElementById('buyArea').click()")
        try browser.wait("document.getElementById('bought')")
        let areaId = try #require(try browser.evaluate("document.getElementById('bought').dataset.area") as? String)
        #expect(areaId.hasPrefix("area-"))
        let bought = try #require(try browser.evaluate("document.getElementById('bought').textContent") as? String)
        #expect(bought.contains("Bought area \(areaId)") && bought.contains("trailmap regions install \(areaId)"), "\(bought)")
        // The account owns it, at the quoted size, and the list shows it as the caller's area.
        let owned = try #require(try browser.evaluate("call('GET', '/entitlements').then(e => e.entitlements)") as? [[String: Any]])
        #expect(owned.first { $0["productId"] as? String == areaId }?["size"] as? Int == size)
        try browser.wait("document.querySelector('.card[data-id=\"\(areaId)\"]')")
        let areaCard = try browser.evaluate("document.querySelector('.card[data-id=\"\(areaId)\"]').textContent") as? String
        #expect(areaCard?.contains("your area") == true, "\(areaCard ?? "")")

        // A point nowhere near a map: the page says which regions are nearest.
        _ = try browser.evaluate("location.hash = 'area=10,10,5'")
        try browser.wait("area && area.center && Math.abs(area.center.lat - 10) < 1e-9")
        _ = try browser.evaluate("document.getElementById('quoteButton').click()")
        try browser.wait("document.getElementById('msg').textContent.includes('Test Colorado')")
    }
}
