import Foundation
import Testing
import TrailMapTestSupport

/// A buyer's page outlives its tile tokens: the server here makes tokens that last 4 s (the debug
/// binary's TRAILMAP_TEST_TILE_TOKEN_LIFETIME), and the page goes on showing the paid region's
/// tiles, each new tile with a token the page got after the last one expired, with no message.
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
                  const j = {'Content-Type': 'application/json'}, creds = JSON.stringify({email: 'renew@example.com', password: 'correct-horse-battery'});
                  await fetch('/api/v1/accounts', {method: 'POST', headers: j, body: creds});
                  const s = await (await fetch('/api/v1/sessions', {method: 'POST', headers: j, body: creds})).json();
                  const h = {...j, Authorization: 'Bearer ' + s.token};
                  const t = await (await fetch('/api/v1/sandbox/transactions', {method: 'POST', headers: h, body: JSON.stringify({productId: 'test.peak'})})).json();
                  return (await fetch('/api/v1/purchases', {method: 'POST', headers: h, body: JSON.stringify({signedTransaction: t.signedTransaction})})).status;
                })()
                """) as? Int
        #expect(bought == 201)
        _ = try browser.evaluate(
            """
            document.getElementById('email').value = 'renew@example.com';
            document.getElementById('pw').value = 'correct-horse-battery';
            document.getElementById('in').click()
            """)
        _ = try browser.evaluate("map.setView([46.1, 10.5], 11, {animate: false}); 0")
        try browser.wait(
            "[...document.querySelectorAll('img.leaflet-tile-loaded')].some(i => /\\/tiles\\/peak\\/11\\/.*token=/.test(i.src))", seconds: 8
        )
        let tokensShown =
            "[...document.querySelectorAll('img.leaflet-tile-loaded')].filter(i => i.src.includes('/tiles/peak/')).map(i => new URL(i.src).searchParams.get('token')).filter(Boolean)"
        var seen = Set(try #require(try browser.evaluate(tokensShown) as? [String]))
        #expect(!seen.isEmpty)
        // Twice: wait past the token's lifetime, then ask for tiles not shown yet (another zoom).
        for zoom in [12, 10] {
            usleep(5_000_000)
            _ = try browser.evaluate("map.setView([46.1, 10.5], \(zoom), {animate: false}); 0")
            let old = seen.map { "'\($0)'" }.joined(separator: ",")
            try browser.wait(
                """
                [...document.querySelectorAll('img.leaflet-tile-loaded')].some(i => /\\/tiles\\/peak\\/\(zoom)\\//.test(i.src) &&
                  new URL(i.src).searchParams.get('token') && ![\(old)].includes(new URL(i.src).searchParams.get('token')))
                """, seconds: 8)
            let msg =
                try browser.evaluate("document.getElementById('msg').hidden ? '' : document.getElementById('msg').textContent") as? String
                ?? "?"
            #expect(msg.isEmpty, "zoom \(zoom): \(msg)")
            seen.formUnion(try #require(try browser.evaluate(tokensShown) as? [String]))
        }
        try Self.screenshot(browser, "viewer-paid-token-renewed")
    }
}
