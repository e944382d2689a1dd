import Foundation
import Testing
import TrailMapTestSupport

/// The viewer's PMTiles link of a paid region served from a `.pmtiles` archive: hidden for
/// anyone without a tile token (the archive would answer 401), carrying the buyer's tile token
/// once they sign in, so that following it downloads the archive.
extension RegionPagesBrowserTests {
    @Test(.enabled(if: ViewerBrowserTests.chromium != nil || ViewerBrowserTests.required, "chromium is not installed"))
    func paidArchiveLinkCarriesTheBuyersTileToken() throws {
        let chromium = try #require(ViewerBrowserTests.chromium, "CI must install chromium")
        let c = try Catalog()
        // The published paid bundle, now served as an archive (the server reloads its folder every second).
        let tiles = c.dir.file("tiles")
        let bundle = (tiles as NSString).appendingPathComponent("peak.mbtiles")
        let export = try CLIRunner.run(["bundle", "export", bundle, "--pmtiles", (tiles as NSString).appendingPathComponent("peak.pmtiles")]
        )
        #expect(export.status == 0, "\(export.stderr)")
        try FileManager.default.removeItem(atPath: bundle)
        let browser = try DevToolsPipe(chromium: chromium, profile: c.dir.file("profile"))
        try browser.open(c.url + "/")
        try browser.wait("fetch('/tiles/peak.pmtiles').then(r => r.status === 401)", seconds: 10)
        // The listing the page reads names the archive once the folder is reloaded (the route above
        // refuses an anonymous caller before it looks for the file).
        try browser.wait("fetch('/tiles').then(r => r.json()).then(l => l.tilesets.some(t => t.id === 'peak' && t.pmtiles))", seconds: 10)
        try browser.open(c.url + "/?tileset=peak")
        try browser.wait("(document.getElementById('msg') || {}).textContent?.includes('preview') === true")
        #expect(try browser.evaluate("document.getElementById('pmtiles').hidden") as? Bool == true, "no link that answers 401")
        #expect(try browser.evaluate("document.getElementById('nopmtiles').textContent") as? String == "PMTiles archive: for its buyers")

        let bought =
            try browser.evaluate(
                """
                (async () => {
                  const j = {'Content-Type': 'application/json'};
                  const creds = JSON.stringify({email: 'archive@example.com', password: 'correct-horse-battery'});
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
            document.getElementById('email').value = 'archive@example.com';
            document.getElementById('pw').value = 'correct-horse-battery';
            document.getElementById('in').click()
            """)
        try browser.wait("!document.getElementById('pmtiles').hidden", seconds: 8)
        let href = try browser.evaluate("document.getElementById('pmtiles').href") as? String ?? ""
        #expect(href.contains("/tiles/peak.pmtiles?token="), "\(href)")
        // Following the link (as a PMTiles client would, by range) gets the archive, not a 401.
        let status =
            try browser.evaluate(
                "fetch(document.getElementById('pmtiles').href, {headers: {Range: 'bytes=0-6'}})"
                    + ".then(async r => r.status + ' ' + await r.text())"
            ) as? String
        #expect(status == "206 PMTiles", "\(status ?? "nil")")
    }
}
