import Foundation
import Testing
import TrailMapTestSupport

/// The store page's error messages stay until the next action: a failed sign-in (a wrong
/// password) and a buy the server refuses (the session ended elsewhere) are still on screen after
/// several seconds in which the map moves and its preview loads tiles, and the next action (the
/// right password, a click on a category) takes the message away.
extension RegionPagesBrowserTests {
    /// The message box's text, or "" while it is hidden.
    static let shownMessage = "document.getElementById('msg').hidden ? '' : document.getElementById('msg').textContent"

    /// Waits `seconds` while the page works on its own (the map moves, its preview and base map
    /// load tiles), then expects `message` still shown, as an error, in view.
    static func expectStays(_ message: String, _ browser: DevToolsPipe, seconds: Int) throws {
        for step in 0..<seconds {
            usleep(1_000_000)
            _ = try browser.evaluate("map.setZoom(\(step % 2 == 0 ? 10 : 9), {animate: false}); 0")
        }
        let now = try browser.evaluate(shownMessage) as? String ?? ""
        #expect(now == message, "after \(seconds) s: '\(now)', was '\(message)'")
        let box = try #require(
            try browser.evaluate(
                """
                (() => {
                  const m = document.getElementById('msg'), r = m.getBoundingClientRect();
                  return [r.top, r.bottom, innerHeight, m.className === 'info' ? 1 : 0];
                })()
                """
            ) as? [Double])
        #expect(box[0] >= 0 && box[1] <= box[2] && box[1] > box[0] && box[3] == 0, "an error in view: \(box)")
    }

    @Test(.enabled(if: ViewerBrowserTests.chromium != nil || ViewerBrowserTests.required, "chromium is not installed"))
    func storeErrorsStayUntilTheNextAction() throws {
        let chromium = try #require(ViewerBrowserTests.chromium, "CI must install chromium")
        let c = try Catalog()
        let browser = try DevToolsPipe(chromium: chromium, profile: c.dir.file("profile"))
        try browser.open(c.url + "/store#test.peak")
        try browser.wait(Self.loadedTile("peak"), seconds: 8)
        let registered =
            try browser.evaluate(
                """
                fetch('/api/v1/accounts', {method: 'POST', headers: {'Content-Type': 'application/json'},
                  body: JSON.stringify({email: 'oops@example.com', password: 'correct-horse-battery'})}).then(r => r.status)
                """) as? Int
        #expect(registered == 201)

        // 1. A wrong password: the server's reason stays while the page sits and its map works.
        _ = try browser.evaluate(
            """
            document.getElementById('email').value = 'oops@example.com';
            document.getElementById('pw').value = 'not-the-password';
            document.getElementById('in').click()
            """)
        try browser.wait("!document.getElementById('msg').hidden && document.getElementById('msg').textContent.length > 0", seconds: 5)
        let wrong = try browser.evaluate(Self.shownMessage) as? String ?? ""
        #expect(wrong.contains("wrong email or password"), "\(wrong)")
        try Self.expectStays(wrong, browser, seconds: 6)
        try Self.screenshot(browser, "store-error-wrong-password")
        // The next action (the right password) takes it away.
        _ = try browser.evaluate(
            "document.getElementById('pw').value = 'correct-horse-battery'; document.getElementById('in').click()")
        try browser.wait("document.getElementById('out') !== null", seconds: 5)
        usleep(500_000)
        #expect(try browser.evaluate(Self.shownMessage) as? String == "", "the sign-in's error is gone once signed in")

        // 2. A buy the server refuses: the session ends elsewhere, then the buyer clicks Buy.
        _ = try browser.evaluate("document.querySelector('.card[data-id=\"test.peak\"]').click()")
        try browser.wait("document.getElementById('buy') !== null", seconds: 5)
        let ended =
            try browser.evaluate(
                "fetch('/api/v1/sessions', {method: 'DELETE', headers: {Authorization: 'Bearer ' + token}}).then(r => r.status)") as? Int
        #expect(ended == 204)
        _ = try browser.evaluate("document.getElementById('buy').click()")
        try browser.wait(
            "!document.getElementById('msg').hidden && document.getElementById('msg').className !== 'info'", seconds: 5)
        let refused = try browser.evaluate(Self.shownMessage) as? String ?? ""
        #expect(refused.contains("log in"), "\(refused)")
        // The page knows the session has ended: no more Buy button, the sign-in form is back.
        try browser.wait("document.getElementById('buy') === null && document.getElementById('in') !== null", seconds: 5)
        try Self.expectStays(refused, browser, seconds: 6)
        try Self.screenshot(browser, "store-error-buy-refused")
        // The next action (a category) takes it away.
        _ = try browser.evaluate("[...document.querySelectorAll('#tree a')].find(a => a.dataset.path === 'Europe').click()")
        try browser.wait("document.getElementById('heading').textContent === 'Europe'", seconds: 5)
        #expect(try browser.evaluate(Self.shownMessage) as? String == "", "the refused buy's error is gone after the next click")
    }
}
