import Foundation
import Testing
import TrailMapTestSupport

/// A buyer's page outlives its tile tokens: the server here makes tokens that last 4 s (the debug
/// binary's TRAILMAP_TEST_TILE_TOKEN_LIFETIME), and the page goes on showing the paid region's
/// tiles at a zoom beyond its preview across two expiries, each new tile drawn with a token the
/// page got after the last one expired, with no message and no loop of console errors.
extension RegionPagesBrowserTests {
    @Test(.enabled(if: ViewerBrowserTests.chromium != nil || ViewerBrowserTests.required, "chromium is not installed"))
    func buyersTilesOutliveTheirTileTokens() throws {
        let chromium = try #require(ViewerBrowserTests.chromium, "CI must install chromium")
        let c = try Catalog(environment: ["TRAILMAP_TEST_TILE_TOKEN_LIFETIME": "4"])
        let browser = try DevToolsPipe(chromium: chromium, profile: c.dir.file("profile"))
        try browser.open(c.url + "/?tileset=peak")
        try browser.wait(Self.loadedTile("peak", token: false), seconds: 5)
        let bought =
            try browser.evaluate(
                """
                (async () => {
                  const j = {'Content-Type': 'application/json'};
                  const creds = JSON.stringify({email: 'renew@example.com', password: 'correct-horse-battery'});
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
            document.getElementById('email').value = 'renew@example.com';
            document.getElementById('pw').value = 'correct-horse-battery';
            document.getElementById('in').click()
            """)
        try browser.watchConsole()
        _ = try browser.evaluate("map.setView([46.1, 10.5], 12, {animate: false}); 0")
        try browser.wait(Self.peakTilesAt12(besides: []), seconds: 8)
        var seen = Set(try #require(try browser.evaluate(Self.peakTokensShown) as? [String]))
        #expect(!seen.isEmpty)
        let errorsBefore = browser.consoleErrors.count
        // Twice: wait past the token's lifetime, then ask for zoom 12's tiles again (the map goes
        // far east and back, so its tiles were dropped): they come with a token the page did not hold.
        for round in 1...2 {
            usleep(5_000_000)
            _ = try browser.evaluate("map.setView([46.1, 12.0], 12, {animate: false}); 0")
            usleep(500_000)
            _ = try browser.evaluate("map.setView([46.1, 10.5], 12, {animate: false}); 0")
            try browser.wait(Self.peakTilesAt12(besides: seen), seconds: 8)
            let msg = try browser.evaluate(Self.shownMessage) as? String ?? "?"
            #expect(msg.isEmpty, "expiry \(round): \(msg)")
            seen.formUnion(try #require(try browser.evaluate(Self.peakTokensShown) as? [String]))
        }
        _ = try browser.evaluate("0")
        let errors = Array(browser.consoleErrors.dropFirst(errorsBefore))
        #expect(!errors.contains { $0.hasPrefix("exception:") }, "no uncaught exception: \(errors)")
        #expect(errors.count < 5, "\(errors.count) console errors: \(errors.prefix(5))")
        try Self.screenshot(browser, "viewer-paid-token-renewed")
    }

    /// Whether the paid region's zoom-12 tiles are on the page, every one with its pixels (a tile
    /// that failed has none, though Leaflet marks it loaded too), one at least with a token not in
    /// `old`. Zoom 12 is beyond the preview zooms (9-11): only a live token of the buyer's shows its
    /// tiles (the server serves preview zooms to anyone, so they would not tell an expired token).
    static func peakTilesAt12(besides old: Set<String>) -> String {
        """
        (() => {
          const tiles = [...document.querySelectorAll('img.leaflet-tile')].filter(i => /\\/tiles\\/peak\\/12\\//.test(i.src));
          const old = \(Array(old));
          const fresh = i => new URL(i.src).searchParams.get('token') && !old.includes(new URL(i.src).searchParams.get('token'));
          return tiles.length > 0 && tiles.every(i => i.complete && i.naturalWidth > 0) && tiles.some(fresh);
        })()
        """
    }

    /// The tokens of the paid region's tiles on the page.
    static let peakTokensShown =
        "[...document.querySelectorAll('img.leaflet-tile-loaded')].filter(i => i.src.includes('/tiles/peak/'))"
        + ".map(i => new URL(i.src).searchParams.get('token')).filter(Boolean)"
}
