import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Synchronization
import Testing
import TileGeometry
import TrailMapTestSupport
@testable import TrailMapServer

/// A paid tile refused: no credential, a tileset nobody may buy whole, a credential the catalog
/// refuses. The event loops answer it themselves (`FastTileAnswer`) with what Hummingbird's path
/// sends, and the tile loops keep the connection; a refused credential is checked once.
@Suite struct PaidRefusalTests {
    static func request(_ path: String, head: Bool = false, bearer: String? = nil) -> String {
        "\(head ? "HEAD" : "GET") \(path) HTTP/1.1\r\nHost: x\r\n" + (bearer.map { "Authorization: Bearer \($0)\r\n" } ?? "") + "\r\n"
    }

    @Test(arguments: ServingPath.allCases) func refusalsAreHummingbirdsAnswersOnTheSameConnection(path: ServingPath) async throws {
        let f = try await computed { try StoreFixture() }
        try f.tiles.bundle("unsold") // no product sells it
        let t = WebMercator.tile(lon: -105, lat: 39, zoom: 3)
        let paid = "/tiles/co/3/\(t.x)/\(t.y).png", unsold = "/tiles/unsold/3/\(t.x)/\(t.y).png"
        let free = "/tiles/world/3/\(t.x)/\(t.y).png"
        let live = try f.live(path, grantLifetime: .seconds(60))
        let access = try #require(live.app.responder.access)
        try await live.test { client in
            let port = try #require(client.port)
            let ann = try await StoreUser.register(client, email: "ann@example.com")
            #expect(try await ann.buy("colorado").status == .created)
            let bob = try await StoreUser.register(client, email: "bob@example.com")
            // Carl's tile token outlives his session: he logged out.
            let carl = try await StoreUser.register(client, email: "carl@example.com")
            #expect(try await carl.buy("colorado").status == .created)
            let issued = try await carl.call(.post, "/api/v1/tile-tokens", ["productId": "colorado"])
            let carlsToken = try #require(StoreFixture.json(issued)["token"] as? String)
            #expect(try await carl.call(.delete, "/api/v1/sessions").status.code < 300)
            // What is refused, and why; `checked`: the catalog is asked about the credential.
            let cases: [(path: String, head: Bool, bearer: String?, status: Int, code: String, checked: Bool)] = [
                (paid, false, nil, 401, "unauthorized", false),
                (paid, true, nil, 401, "unauthorized", false),
                (paid + "?token=nope", false, nil, 401, "invalid_tile_token", true),
                (paid + "?token=" + carlsToken, false, nil, 401, "invalid_tile_token", true),
                (paid, false, bob.token, 403, "not_entitled", true),
                (paid, false, "no-such-session", 401, "unauthorized", true),
                (unsold, false, nil, 403, "tileset_not_public", false),
                (unsold, false, ann.token, 403, "tileset_not_public", false)
            ]
            // Ann's grant for colorado, which must not open another tileset.
            #expect(try await RawHTTP.exchange(port: port, Self.request(paid, bearer: ann.token), heads: [false]).map(\.status) == [200])
            let before = path == .loops ? try await RawTileServerTests.loopCounters(port: port).handOffs : 0
            let checks = access.checks.load(ordering: .relaxed)
            // Each refusal on a connection of its own, then a free tile and Ann's paid one behind it.
            var answers: [RawHTTP.Response] = []
            let freeBytes = try ServerFixture.png(t), paidBytes = try ServerFixture.png(t, shade: 1)
            for c in cases {
                let got = try await RawHTTP.exchange(
                    port: port,
                    Self.request(c.path, head: c.head, bearer: c.bearer) + Self.request(free) + Self.request(paid, bearer: ann.token),
                    heads: [c.head, false, false])
                #expect(got.map(\.status) == [c.status, 200, 200], "\(c)")
                #expect(got[1].body == freeBytes && got[2].body == paidBytes)
                answers.append(got[0])
            }
            let checked = access.checks.load(ordering: .relaxed) - checks
            #expect(checked == cases.filter(\.checked).count, "each refused credential checked once: \(checked) checks")
            if path == .loops {
                let after = try await RawTileServerTests.loopCounters(port: port)
                #expect(after.handOffs - before == 1, "only the metrics' own connection was handed on")
            }
            #expect(answers[1].headers["content-length"] == answers[0].headers["content-length"], "HEAD: the length of GET's body")
            #expect(
                answers.indices.allSatisfy { cases[$0].head || answers[$0].headers["content-length"] == String(answers[$0].body.count) })

            // The same requests through Hummingbird's router, called directly (no fast path): the
            // same status, fields and body.
            let sent = cases.map { ($0.path, $0.head, $0.bearer, $0.code) }, got = answers
            try await f.app(grantLifetime: .seconds(60)).test(.router) { router in
                try await Self.compare(sent, got, router)
            }
        }
    }

    /// Each answer against Hummingbird's router's to the same request.
    static func compare(
        _ cases: [(path: String, head: Bool, bearer: String?, code: String)], _ answers: [RawHTTP.Response],
        _ client: any TestClientProtocol
    ) async throws {
        for (c, answer) in zip(cases, answers) {
            let twin = try await client.execute(
                uri: c.path, method: c.head ? .head : .get, headers: c.bearer.map { [.authorization: "Bearer \($0)"] } ?? [:])
            var theirs: [String: String] = [:]
            for field in twin.headers { theirs[field.name.canonicalName] = field.value }
            var mine = answer.headers
            // The fields the HTTP server adds to every answer, which a router's test leaves out.
            for name in ["date", "content-length", "server"] {
                mine.removeValue(forKey: name)
                theirs.removeValue(forKey: name)
            }
            #expect(answer.status == Int(twin.status.code) && mine == theirs, "\(c): \(mine) against \(theirs)")
            #expect(answer.body == Array(buffer: twin.body), "\(c)")
            // RFC 9110: a 401 names the scheme to authenticate with.
            #expect(answer.status != 401 || answer.headers["www-authenticate"] == "Bearer realm=\"trailmap\"", "\(c)")
            guard !c.head else { continue }
            let json = try JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any]
            #expect((json?["error"] as? [String: Any])?["code"] as? String == c.code, "\(c)")
        }
    }
}
