import Foundation
import Testing
import TrailMapTestSupport

/// The store page's script is a served asset, not inline: the page's Content-Security-Policy
/// allows scripts from this server only (no hash, no 'unsafe-inline'), and the script is served
/// like the viewer's.
@Suite(.blockingThreads) struct StorePageAssetCLITests {
    /// Headers and body of a GET through curl.
    static func get(_ url: String, headers: [String] = []) throws -> (head: String, body: String) {
        let dir = TemporaryDirectory()
        let r = try CLIRunner.run(
            ["-sS", "-D", dir.file("head"), "-o", dir.file("body")] + headers.flatMap { ["-H", $0] } + [url],
            executable: "/usr/bin/curl")
        #expect(r.status == 0, "\(r.stderr)")
        // curl writes no body file for an empty body (a 304).
        let body =
            FileManager.default.fileExists(atPath: dir.file("body")) ? try String(contentsOfFile: dir.file("body"), encoding: .utf8) : ""
        return (try String(contentsOfFile: dir.file("head"), encoding: .utf8), body)
    }

    @Test func storeScriptIsAnAssetUnderATightPolicy() throws {
        let server = try FreeAndPaidServer()
        let page = try Self.get(server.url + "/store")
        #expect(page.head.hasPrefix("HTTP/1.1 200"), "\(page.head)")
        let csp = try #require(
            page.head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-security-policy:") }, "\(page.head)")
        let scriptSrc = try #require(csp.split(separator: ";").first { $0.contains("script-src") }, "\(csp)")
        #expect(scriptSrc.trimmingCharacters(in: .whitespaces) == "script-src 'self'", "\(csp)")
        #expect(!page.body.contains("<script>"), "no inline script in the page")
        #expect(page.body.contains(#"<script src="/viewer/trailmap-store.js"></script>"#))

        let script = try Self.get(server.url + "/viewer/trailmap-store.js")
        #expect(
            script.head.hasPrefix("HTTP/1.1 200") && script.head.lowercased().contains("content-type: application/javascript"),
            "\(script.head)")
        #expect(
            script.body.contains("const api = '/api/v1';") && script.body.contains("load().then(fromHash)"), "\(script.body.prefix(200))")
    }

    /// The value of header `name` in a response head.
    static func header(_ name: String, in head: String) -> String? {
        head.split(separator: "\r\n").first { $0.lowercased().hasPrefix(name.lowercased() + ":") }
            .map { $0.dropFirst(name.count + 1).trimmingCharacters(in: .whitespaces) }
    }

    /// Every page and page file carries an ETag of its content; asked again with it in
    /// If-None-Match, the server answers 304 with no body; another tag gets the file again.
    @Test func pageFilesRevalidateByETag() throws {
        let server = try FreeAndPaidServer()
        for path in [
            "/", "/store", "/viewer/trailmap-viewer.js", "/viewer/trailmap-store.js", "/viewer/trailmap-profile.js", "/viewer/leaflet.js"
        ] {
            let first = try Self.get(server.url + path)
            #expect(first.head.hasPrefix("HTTP/1.1 200"), "\(path): \(first.head)")
            let etag = try #require(Self.header("etag", in: first.head), "\(path) has no ETag: \(first.head)")
            // The tag is the content's: SHA-256 of the body (its first 128 bits).
            let dir = TemporaryDirectory()
            try first.body.write(toFile: dir.file("body"), atomically: false, encoding: .utf8)
            let hash = try CLIRunner.run([dir.file("body")], executable: "/usr/bin/sha256sum")
            #expect(etag == "\"\(hash.stdout.prefix(32))\"", "\(path): \(etag)")
            let again = try Self.get(server.url + path, headers: ["If-None-Match: \(etag)"])
            #expect(again.head.hasPrefix("HTTP/1.1 304"), "\(path): \(again.head)")
            #expect(again.body.isEmpty && Self.header("etag", in: again.head) == etag, "\(path)")
            let other = try Self.get(server.url + path, headers: [#"If-None-Match: "0000", W/"1111""#])
            #expect(other.head.hasPrefix("HTTP/1.1 200") && other.body == first.body, "\(path): \(other.head)")
        }
    }
}
