import Foundation
import Testing
import TrailMapAPI
import TrailMapTestSupport

/// Issue 36, findings 11 and 12 through the CLI: `trailmap regions` and `account` against a server
/// that puts terminal escapes in what it sends, and plain http to another machine.
@Suite(.blockingThreads) struct HostileServerCLITests {
    static let evil = "Evil\u{1B}]0;owned\u{07}\u{1B}[2J\u{1B}[1;1H Region\u{9B}31m\u{202E}fdp.exe\u{7F}\r"

    static func json(_ value: some Encodable) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: (try? encoder.encode(value)) ?? Data(), as: UTF8.self)
    }

    static func product() -> ProductSummary {
        ProductSummary(
            productId: "com.test.evil", title: evil, category: "States/\(evil)", description: "About \(evil)",
            price: Price(amount: "1.99", currency: "USD\u{1B}[5m"), version: 1, size: 1000, sha256: String(repeating: "ab", count: 32),
            minzoom: 0, maxzoom: 4, bounds: [-10, -10, 10, 10], tileset: "evil", status: .forSale,
            levels: [ProductLevel(name: "a", title: "A", kind: "series", minzoom: 0, maxzoom: 4, summary: "level \(evil)")])
    }

    /// No byte a terminal acts on: C0 controls but newline, DEL, C1 controls, bidi overrides.
    static func controls(_ text: String) -> [UInt32] {
        text.unicodeScalars.map(\.value).filter {
            ($0 < 0x20 && $0 != 0x0A) || (0x7F...0x9F).contains($0) || (0x202A...0x202E).contains($0)
        }
    }

    /// Finding 11: titles, categories, descriptions, prices, levels and error messages with escape
    /// sequences are printed without them (the words stay); JSON stays exact and escaped.
    @Test func serverTextIsPrintedWithoutControlCharacters() throws {
        let server = try CraftedAnswerServer { method, path in
            switch (method, path) {
            case ("GET", "/api/v1/catalog"):
                return .init(status: 200, body: Self.json(CatalogListing(categories: [], products: [Self.product()])))
            case ("GET", "/api/v1/catalog/com.test.evil"):
                return .init(
                    status: 200,
                    body: Self.json(
                        ProductDetail(
                            summary: Self.product(),
                            coverage: Coverage(productId: "com.test.evil", title: "E", west: -10, south: -10, east: 10, north: 10),
                            previewTileURL: "/p.png", downloadURL: "/d", tileJSONURL: "/t.json", publishedAt: "2026-11-26T00:00:00Z")))
            default:
                return .init(status: 409, body: Self.json(APIErrorBody(code: "conflict\u{1B}[2J", message: "refused \(Self.evil)")))
            }
        }
        defer { server.stop() }
        let dir = TemporaryDirectory()
        let common = ["--server", server.url, "--state-dir", dir.file("state"), "--tiles", dir.file("Tiles"), "--attempts", "1"]
        for args in [["regions", "list"], ["regions", "show", "com.test.evil"], ["regions", "near", "1,1"]] {
            let r = try CLIRunner.run(args + common)
            #expect(r.status == 0, "\(args): \(r.stderr)")
            #expect(
                r.stdout.contains("Evil]0;owned") && r.stdout.contains("Region"), "\(args): the words stay: \(r.stdout.debugDescription)")
            #expect(Self.controls(r.stdout).isEmpty && Self.controls(r.stderr).isEmpty, "\(args): \(r.stdout.debugDescription)")
        }
        let failed = try CLIRunner.run(["regions", "show", "com.test.other"] + common)
        #expect(failed.status != 0 && failed.stderr.contains("refused Evil"), "\(failed.stderr.debugDescription)")
        #expect(Self.controls(failed.stderr).isEmpty, "\(failed.stderr.debugDescription)")
        let json = try CLIRunner.run(["regions", "list", "--json"] + common)
        #expect(json.status == 0 && json.stdout.lowercased().contains("\\u001b]0;owned"), "JSON escapes ESC: \(json.stdout)")
        #expect(!json.stdout.unicodeScalars.contains { $0.value == 0x1B })
    }

    /// Finding 12: `account login` to an http:// server on another machine is refused, naming
    /// --insecure-http, before the password is sent; with the flag it goes; loopback needs none.
    @Test func plainHTTPToAnotherMachineNeedsTheFlag() throws {
        let address = try #require(NetworkAddresses.nonLoopbackIPv4(), "this machine has no non-loopback IPv4 address")
        let server = try CraftedAnswerServer(address: "0.0.0.0") { _, _ in
            .init(status: 401, body: Self.json(APIErrorBody(code: "unauthorized", message: "wrong password")))
        }
        defer { server.stop() }
        let dir = TemporaryDirectory()
        let remote = "http://\(address):\(server.port)"
        let login = ["account", "login", "--email", "a@example.com", "--password", "secret-password", "--state-dir", dir.file("state")]
        for args in [login + ["--server", remote], ["regions", "list", "--server", remote, "--state-dir", dir.file("state")]] {
            let refused = try CLIRunner.run(args)
            #expect(refused.status != 0, "\(args)")
            #expect(
                refused.stderr.contains("plain http") && refused.stderr.contains("--insecure-http") && refused.stderr.contains(remote),
                "\(refused.stderr)")
        }
        #expect(server.requests.all.isEmpty, "nothing was sent")
        let allowed = try CLIRunner.run(login + ["--server", remote, "--insecure-http"])
        #expect(allowed.status != 0 && allowed.stderr.contains("not logged in"), "\(allowed.stderr)")
        #expect(server.requests.all == ["POST /api/v1/sessions"])
        let local = try CLIRunner.run(login + ["--server", server.url])
        #expect(local.status != 0 && local.stderr.contains("not logged in") && !local.stderr.contains("--insecure-http"), "\(local.stderr)")
        #expect(server.requests.all.count == 2)
        let help = try CLIRunner.run(["regions", "list", "--help"])
        #expect(help.stdout.contains("--insecure-http"))
    }
}
