import Foundation
import Testing
import TrailMapTestSupport

/// The store page's script is a served asset, not inline: the page's Content-Security-Policy
/// allows scripts from this server only (no hash, no 'unsafe-inline'), and the script is served
/// like the viewer's.
@Suite struct StorePageAssetCLITests {
    /// Headers and body of a GET through curl.
    static func get(_ url: String) throws -> (head: String, body: String) {
        let dir = TemporaryDirectory()
        let r = try CLIRunner.run(["-sS", "-D", dir.file("head"), "-o", dir.file("body"), url], executable: "/usr/bin/curl")
        #expect(r.status == 0, "\(r.stderr)")
        return (try String(contentsOfFile: dir.file("head"), encoding: .utf8), try String(contentsOfFile: dir.file("body"), encoding: .utf8))
    }

    @Test func storeScriptIsAnAssetUnderATightPolicy() throws {
        let server = try FreeAndPaidServer()
        let page = try Self.get(server.url + "/store")
        #expect(page.head.hasPrefix("HTTP/1.1 200"), "\(page.head)")
        let csp = try #require(page.head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-security-policy:") }, "\(page.head)")
        let scriptSrc = try #require(csp.split(separator: ";").first { $0.contains("script-src") }, "\(csp)")
        #expect(scriptSrc.trimmingCharacters(in: .whitespaces) == "script-src 'self'", "\(csp)")
        #expect(!page.body.contains("<script>"), "no inline script in the page")
        #expect(page.body.contains(#"<script src="/viewer/trailmap-store.js"></script>"#))

        let script = try Self.get(server.url + "/viewer/trailmap-store.js")
        #expect(script.head.hasPrefix("HTTP/1.1 200") && script.head.lowercased().contains("content-type: application/javascript"), "\(script.head)")
        #expect(script.body.contains("const api = '/api/v1';") && script.body.contains("load().then(fromHash)"), "\(script.body.prefix(200))")
    }
}
