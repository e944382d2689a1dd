import Foundation
import Testing
import TrailMapTestSupport

/// A buyer's page whose tile token is refused long before it expires (its key replaced with
/// `trailmap catalog revoke-tile-tokens`, as after a leak) asks for a new token when a tile is
/// refused, and again after the next revocation once tiles loaded with the renewed one: the
/// refused-tile path of the renewal the viewer and the store share (`TokenRenewalScript`). The
/// tokens here last the server's default lifetime, so no renewal before expiry runs in the test.
extension RegionPagesBrowserTests {
    @Test(.enabled(if: ViewerBrowserTests.chromium != nil || ViewerBrowserTests.required, "chromium is not installed"))
    func viewerRenewsATileTokenRevokedWhileItIsOpen() throws {
        let chromium = try #require(ViewerBrowserTests.chromium, "CI must install chromium")
        let c = try Catalog()
        let browser = try DevToolsPipe(chromium: chromium, profile: c.dir.file("profile"))
        try browser.open(c.url + "/?tileset=peak")
        try browser.wait(Self.loadedTile("peak", token: false), seconds: 5)
        #expect(try Self.buyPeak(browser, as: "revoked@example.com") == 201)
        _ = try browser.evaluate(
            """
            document.getElementById('email').value = 'revoked@example.com';
            document.getElementById('pw').value = 'correct-horse-battery';
            document.getElementById('in').click()
            """)
        try Self.outlivesTwoRevocations(browser, c, page: "viewer") { _ in }
        try Self.screenshot(browser, "viewer-revoked-token-renewed")
    }

    @Test(.enabled(if: ViewerBrowserTests.chromium != nil || ViewerBrowserTests.required, "chromium is not installed"))
    func storePreviewRenewsATileTokenRevokedWhileItIsOpen() throws {
        let chromium = try #require(ViewerBrowserTests.chromium, "CI must install chromium")
        let c = try Catalog()
        let browser = try DevToolsPipe(chromium: chromium, profile: c.dir.file("profile"))
        try browser.open(c.url + "/store")
        try browser.wait("document.querySelector('.card[data-id=\"test.peak\"]') !== null", seconds: 5)
        #expect(try Self.buyPeak(browser, as: "revoked@example.com") == 201)
        _ = try browser.evaluate(
            """
            document.getElementById('email').value = 'revoked@example.com';
            document.getElementById('pw').value = 'correct-horse-battery';
            document.getElementById('in').click()
            """)
        try browser.wait("document.getElementById('out') !== null", seconds: 5)
        _ = try browser.evaluate("document.querySelector('.card[data-id=\"test.peak\"]').click()")
        try browser.wait("document.getElementById('previewNote').textContent.includes('every zoom')", seconds: 8)
        let owned = try browser.evaluate("document.getElementById('previewNote').textContent") as? String ?? ""
        try Self.outlivesTwoRevocations(browser, c, page: "store") { round in
            let note = try browser.evaluate("document.getElementById('previewNote').textContent") as? String ?? ""
            #expect(note == owned, "revocation \(round): \(note)")
        }
        try Self.screenshot(browser, "store-revoked-token-renewed")
    }

    /// Shows the paid region at zoom 12 with the buyer's token, then twice: revokes every tile
    /// token, waits until the server refuses them (`TileTokens.refreshInterval`, 10 s), and asks for
    /// zoom 12's tiles again (the browser's cache cleared, the map far east and back, so its tiles
    /// were dropped): they come with a token the page did not hold, with no message and no uncaught
    /// exception. `check`: what else holds after each round.
    static func outlivesTwoRevocations(_ browser: DevToolsPipe, _ c: Catalog, page: String, check: (Int) throws -> Void) throws {
        try browser.watchConsole()
        _ = try browser.evaluate("map.setView([46.1, 10.5], 12, {animate: false}); 0")
        try browser.wait(Self.peakTilesAt12(besides: []), seconds: 8)
        var seen = Set(try #require(try browser.evaluate(Self.peakTokensShown) as? [String]))
        #expect(!seen.isEmpty)
        for round in 1...2 {
            let revoke = try CLIRunner.run(["catalog", "revoke-tile-tokens", "--catalog", c.dir.file("catalog.sqlite"), "--quiet"])
            #expect(revoke.status == 0, "\(revoke.stderr)")
            usleep(11_000_000)
            try browser.send("Network.clearBrowserCache")
            _ = try browser.evaluate("map.setView([46.1, 12.0], 12, {animate: false}); 0")
            usleep(500_000)
            _ = try browser.evaluate("map.setView([46.1, 10.5], 12, {animate: false}); 0")
            do { try browser.wait(Self.peakTilesAt12(besides: seen), seconds: 10) } catch {
                let msg = try? browser.evaluate(Self.shownMessage)
                throw DevToolsPipe.Failure("\(page), revocation \(round): \(error); message: \(String(describing: msg))")
            }
            let msg = try browser.evaluate(Self.shownMessage) as? String ?? "?"
            #expect(msg.isEmpty, "\(page), revocation \(round): \(msg)")
            try check(round)
            seen.formUnion(try #require(try browser.evaluate(Self.peakTokensShown) as? [String]))
        }
        _ = try browser.evaluate("0")
        #expect(!browser.consoleErrors.contains { $0.hasPrefix("exception:") }, "no uncaught exception: \(browser.consoleErrors)")
    }

    /// Registers `email` and buys the paid region with it (from the page, as its script would);
    /// the purchase's HTTP status.
    static func buyPeak(_ browser: DevToolsPipe, as email: String) throws -> Int? {
        try browser.evaluate(
            """
            (async () => {
              const j = {'Content-Type': 'application/json'};
              const creds = JSON.stringify({email: '\(email)', password: 'correct-horse-battery'});
              await fetch('/api/v1/accounts', {method: 'POST', headers: j, body: creds});
              const s = await (await fetch('/api/v1/sessions', {method: 'POST', headers: j, body: creds})).json();
              const h = {...j, Authorization: 'Bearer ' + s.token};
              const t = await (await fetch('/api/v1/sandbox/transactions',
                {method: 'POST', headers: h, body: JSON.stringify({productId: 'test.peak'})})).json();
              return (await fetch('/api/v1/purchases',
                {method: 'POST', headers: h, body: JSON.stringify({signedTransaction: t.signedTransaction})})).status;
            })()
            """) as? Int
    }
}
