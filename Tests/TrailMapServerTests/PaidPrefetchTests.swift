import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing
import TileGeometry
@testable import TrailMapServer
import TrailMapTestSupport

/// Paid tiles are answered on Hummingbird's path once their credential is checked. Prefetch
/// follows each buyer's login session there: two buyers on one address are two map sessions, and
/// a tile token counts as the login session that asked for it.
@Suite struct PaidPrefetchTests {
    static func trackedSessions(_ client: any TestClientProtocol) async throws -> Int? {
        let text = String(buffer: try await client.execute(uri: "/metrics", method: .get).body)
        let prefix = #"trailmap_prefetch_sessions{state="tracked"} "#
        return text.split(separator: "\n").first { $0.hasPrefix(prefix) }.flatMap { Double($0.dropFirst(prefix.count)) }.map { Int($0) }
    }

    @Test func eachBuyersLoginSessionIsAMapSession() async throws {
        let f = try await computed { try StoreFixture() }
        let t = WebMercator.tile(lon: -105, lat: 39, zoom: 3)
        let tile = "/tiles/co/3/\(t.x)/\(t.y).png"
        try await f.app().test(.live) { client in
            #expect(try await Self.trackedSessions(client) == 0)
            #expect(try await client.execute(uri: tile, method: .get).status == .unauthorized)
            #expect(try await Self.trackedSessions(client) == 0, "a refused request is no session")

            let ann = try await APIUser.register(client, email: "ann@example.com")
            let bob = try await APIUser.register(client, email: "bob@example.com")
            #expect(try await ann.buy("colorado").status == .created)
            #expect(try await bob.buy("colorado").status == .created)
            #expect(try await ann.call(.get, tile).status == .ok)
            #expect(try await Self.trackedSessions(client) == 1)
            #expect(try await bob.call(.get, tile).status == .ok)
            #expect(try await Self.trackedSessions(client) == 2, "two buyers from one address")

            // A tile token names the login session that asked for it: Ann's, already followed.
            let token = try #require(
                StoreFixture.json(try await ann.call(.post, "/api/v1/tile-tokens", ["productId": "colorado"]))["token"] as? String)
            #expect(try await client.execute(uri: tile + "?token=\(token)", method: .get).status == .ok)
            #expect(try await Self.trackedSessions(client) == 2)

            // Ann's second device logs in: a third session.
            let login = try await client.execute(
                uri: "/api/v1/sessions", method: .post, headers: [.contentType: "application/json"],
                body: StoreFixture.body(["email": "ann@example.com", "password": "correct horse battery"]))
            let second = try #require(StoreFixture.json(login)["token"] as? String)
            #expect(try await client.execute(uri: tile, method: .get, headers: [.authorization: "Bearer \(second)"]).status == .ok)
            #expect(try await Self.trackedSessions(client) == 3)
        }
    }
}
