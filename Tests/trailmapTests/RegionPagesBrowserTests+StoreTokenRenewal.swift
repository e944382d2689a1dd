import Foundation
import Testing
import TrailMapTestSupport

/// The store page of a region its buyer owns outlives its tile tokens: with 4-second tokens (the
/// debug binary's TRAILMAP_TEST_TILE_TOKEN_LIFETIME), the preview goes on showing the paid
/// region's tiles at every zoom across two expiries, each new tile with a token the page got after
/// the last one expired, its note unchanged, no message and no uncaught exception.
extension RegionPagesBrowserTests {
    @Test(.enabled(if: ViewerBrowserTests.chromium != nil || ViewerBrowserTests.required, "chromium is not installed"))
    func storePreviewOfAnOwnedRegionOutlivesItsTileTokens() throws {
        let chromium = try #require(ViewerBrowserTests.chromium, "CI must install chromium")
        let c = try Catalog(environment: ["TRAILMAP_TEST_TILE_TOKEN_LIFETIME": "4"])
        let browser = try DevToolsPipe(chromium: chromium, profile: c.dir.file("profile"))
        try browser.open(c.url + "/store")
        try browser.watchConsole()
        try browser.wait("document.querySelector('.card[data-id=\"test.peak\"]') !== null", seconds: 5)
        let bought =
            try browser.evaluate(
                """
                (async () => {
                  const j = {'Content-Type': 'application/json'};
                  const creds = JSON.stringify({email: 'owner@example.com', password: 'correct-horse-battery'});
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
            document.getElementById('email').value = 'owner@example.com';
            document.getElementById('pw').value = 'correct-horse-battery';
            document.getElementById('in').click()
            """)
        try browser.wait("document.getElementById('out') !== null", seconds: 5)
        _ = try browser.evaluate("document.querySelector('.card[data-id=\"test.peak\"]').click()")
        try browser.wait("document.getElementById('previewNote').textContent.includes('every zoom')", seconds: 8)
        let owned = try browser.evaluate("document.getElementById('previewNote').textContent") as? String ?? ""
        // Zoom 12 is beyond the preview zooms (9-11): only a live token of the buyer's shows its tiles
        // (the server serves preview zooms to anyone, so they would not tell an expired token).
        let shownAt12 = { (old: String) in
            """
            [...document.querySelectorAll('img.leaflet-tile-loaded')].some(i =>
              /\\/tiles\\/peak\\/12\\//.test(i.src) && i.naturalWidth > 0 &&
              new URL(i.src).searchParams.get('token') && ![\(old)].includes(new URL(i.src).searchParams.get('token')))
            """
        }
        _ = try browser.evaluate("map.setView([46.1, 10.5], 12, {animate: false}); 0")
        try browser.wait(shownAt12(""), seconds: 8)
        let tokensShown =
            "[...document.querySelectorAll('img.leaflet-tile-loaded')].filter(i => i.src.includes('/tiles/peak/'))"
            + ".map(i => new URL(i.src).searchParams.get('token')).filter(Boolean)"
        var seen = Set(try #require(try browser.evaluate(tokensShown) as? [String]))
        #expect(!seen.isEmpty)
        _ = try browser.evaluate("0")
        let errorsBefore = browser.consoleErrors.count
        // Twice: wait past the token's lifetime, then ask for zoom 12's tiles again (the map goes
        // far east and back, so its tiles were dropped): they come with a token the page did not hold.
        for round in 1...2 {
            usleep(5_000_000)
            _ = try browser.evaluate("map.setView([46.1, 12.0], 12, {animate: false}); 0")
            usleep(500_000)
            _ = try browser.evaluate("map.setView([46.1, 10.5], 12, {animate: false}); 0")
            try browser.wait(shownAt12(seen.map { "'\($0)'" }.joined(separator: ",")), seconds: 8)
            let note = try browser.evaluate("document.getElementById('previewNote').textContent") as? String ?? ""
            #expect(note == owned, "expiry \(round): \(note)")
            let msg = try browser.evaluate(Self.shownMessage) as? String ?? "?"
            #expect(msg.isEmpty, "expiry \(round): \(msg)")
            seen.formUnion(try #require(try browser.evaluate(tokensShown) as? [String]))
        }
        _ = try browser.evaluate("0")
        let errors = Array(browser.consoleErrors.dropFirst(errorsBefore))
        #expect(!errors.contains { $0.hasPrefix("exception:") }, "no uncaught exception: \(errors)")
        #expect(errors.count < 5, "\(errors.count) console errors: \(errors.prefix(5))")
        try Self.screenshot(browser, "store-owned-token-renewed")
    }
}
