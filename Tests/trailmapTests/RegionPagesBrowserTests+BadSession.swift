import Foundation
import Testing
import TrailMapTestSupport

/// A bad token in the tab's session (one the server never issued, or one whose session is gone):
/// the store still lists its products and the viewer still shows the paid region's preview, each
/// with a message that the session has ended and the sign-in form, the token forgotten, and no
/// loop of failing requests.
extension RegionPagesBrowserTests {
    @Test(.enabled(if: ViewerBrowserTests.chromium != nil || ViewerBrowserTests.required, "chromium is not installed"))
    func aBadSessionTokenEndsInAMessageNotABlankPage() throws {
        let chromium = try #require(ViewerBrowserTests.chromium, "CI must install chromium")
        let c = try Catalog()
        let browser = try DevToolsPipe(chromium: chromium, profile: c.dir.file("profile"))
        try browser.open(c.url + "/store")
        try browser.wait("document.querySelector('.card')", seconds: 8)
        let message = "!document.getElementById('msg').hidden && document.getElementById('msg').textContent.includes('session has ended')"

        // The store page.
        // (The token is put in this tab's session storage, and the page loaded again in the same tab.)
        _ = try browser.evaluate("sessionStorage.setItem('token', 'not-a-session-token'); location.reload(); 0")
        usleep(500_000)
        try browser.wait("document.querySelectorAll('.card').length === 3", seconds: 8)
        try browser.wait(message, seconds: 30)
        #expect(
            try browser.evaluate("sessionStorage.getItem('token') === null && document.getElementById('in') !== null") as? Bool == true,
            "the token is forgotten and the page offers to log in")
        try Self.screenshot(browser, "store-bad-session")

        // The viewer on the paid region: its preview, the message, the sign-in form.
        _ = try browser.evaluate("sessionStorage.setItem('token', 'not-a-session-token'); location.href = '/?tileset=peak'; 0")
        usleep(500_000)
        try browser.wait(Self.loadedTile("peak", token: false), seconds: 8)
        try browser.wait(message, seconds: 30)
        let shown = try browser.evaluate("document.getElementById('msg').textContent") as? String ?? ""
        #expect(shown.contains("preview"), "the preview's prompt is kept: \(shown)")
        try browser.wait("sessionStorage.getItem('token') === null && document.getElementById('in') !== null", seconds: 5)
        let before = (try browser.evaluate(Self.tileRequests + ".length") as? Int) ?? 0
        usleep(1_500_000)
        let after = (try browser.evaluate(Self.tileRequests + ".length") as? Int) ?? 0
        #expect(after - before < 20, "no loop of failing requests: \(after - before) more")
        try Self.screenshot(browser, "viewer-bad-session")

        // The viewer on a free region: the session is checked too.
        _ = try browser.evaluate("sessionStorage.setItem('token', 'not-a-session-token'); location.href = '/?tileset=alps'; 0")
        usleep(500_000)
        try browser.wait(Self.loadedTile("alps"), seconds: 8)
        try browser.wait(message, seconds: 30)
    }
}
