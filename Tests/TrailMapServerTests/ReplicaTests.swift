import Catalog
import CatalogPostgres
import StoreVerification
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing
@testable import TrailMapServer
import TrailMapTestSupport

/// Two servers on one PostgreSQL catalog, over real HTTP (issue "Scale-out"): whatever one
/// server does, the other sees.
@Suite struct ReplicaTests {
    static func open(_ url: String) async throws -> PostgresCatalog {
        try await PostgresCatalog.open(try PostgresCatalogConfiguration(url: url), hasher: PasswordHasher(rounds: 1 << 10))
    }

    static func app(_ f: StoreFixture, _ catalog: PostgresCatalog) throws -> Application<TileResponder> {
        var config = ServerConfiguration(tilesDirectory: f.tiles.dir.path)
        config.port = 0
        config.reloadInterval = .milliseconds(100)
        return TileServer.makeApplication(
            config: config,
            store: try StoreSettings(
                catalog: catalog, verifier: try f.sandbox.verifier(),
                sandbox: f.sandbox))
    }

    @Test func whatOneServerDoesTheOtherSees() async throws {
        let f = try await computed { try StoreFixture() }
        let url = try await PostgresTestServer.freshDatabase()
        let (one, two, publisher) = (try await Self.open(url), try await Self.open(url), try await Self.open(url))
        defer { [one, two, publisher].forEach { $0.close() } }
        let products = f.tiles.dir.file("products.json")
        _ = try await publisher.publish(try ProductFile.load(path: products), tilesDirectory: f.tiles.dir.path)

        try await Self.app(f, one).test(.live) { a in
            try await Self.app(f, two).test(.live) { b in
                // An account made on one server; its session works on the other.
                let onA = try await APIUser.register(a, email: "ann@example.com")
                let onB = APIUser(client: b, token: onA.token, appAccountToken: onA.appAccountToken)
                #expect(try await onB.call(.get, "/api/v1/entitlements").status == .ok)

                // A purchase on one, the entitlement on the other.
                #expect(try await onA.buy("colorado").status == .created)
                let owned = StoreFixture.json(try await onB.call(.get, "/api/v1/entitlements"))["entitlements"] as? [[String: Any]]
                #expect(owned?.map { $0["productId"] as? String } == ["colorado"])

                // One transaction posted eight times at once, spread over both: one entitlement.
                let signed = StoreFixture.json(try await onA.call(.post, "/api/v1/sandbox/transactions", ["productId": "utah"]))
                let jws = try #require(signed["signedTransaction"] as? String)
                let statuses = try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { group in
                    for i in 0..<8 {
                        let user = i % 2 == 0 ? onA : onB
                        group.addTask { try await user.call(.post, "/api/v1/purchases", ["signedTransaction": jws]).status }
                    }
                    return try await group.reduce(into: [HTTPResponse.Status]()) { $0.append($1) }
                }
                #expect(statuses.filter { $0 == .created }.count == 1 && statuses.filter { $0 == .ok }.count == 7, "\(statuses)")
                let all = StoreFixture.json(try await onA.call(.get, "/api/v1/entitlements"))["entitlements"] as? [[String: Any]]
                #expect(all?.compactMap { $0["productId"] as? String }.sorted() == ["colorado", "utah"])

                // A tile token from one opens tiles on the other.
                let grant = StoreFixture.json(try await onA.call(.post, "/api/v1/tile-tokens", ["productId": "colorado"]))
                let token = try #require(grant["token"] as? String)
                let tile = "/tiles/co/3/1/3.png?token=\(token)"
                #expect(try await b.execute(uri: tile, method: .get).status == .ok)

                // A publish from a third process shows on both (polled; 10 s only guards a hang).
                var json = try #require(
                    try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: products))) as? [String: Any])
                var entries = try #require(json["products"] as? [[String: Any]])
                for i in entries.indices where entries[i]["productId"] as? String == "utah" { entries[i]["title"] = "Utah 2027" }
                json["products"] = entries
                try JSONSerialization.data(withJSONObject: json).write(to: URL(fileURLWithPath: products))
                _ = try await publisher.publish(try ProductFile.load(path: products), tilesDirectory: f.tiles.dir.path)
                for client in [a, b] {
                    var seen = false
                    for _ in 0..<200 where !seen {
                        let body = String(buffer: try await client.execute(uri: "/api/v1/catalog", method: .get).body)
                        seen = body.contains("Utah 2027")
                        if !seen { try await Task.sleep(for: .milliseconds(50)) }
                    }
                    #expect(seen, "the publish shows")
                }

                // A refund through one stops downloads on the other at once.
                #expect(try await onB.call(.get, "/api/v1/downloads/colorado", headers: [.range: "bytes=0-15"]).status == .partialContent)
                let txn = try #require((owned?.first?["originalTransactionId"]) as? String)
                let refund = try await onA.call(
                    .post, "/api/v1/sandbox/notifications", ["notificationType": "REFUND", "transactionId": txn])
                let payload = try #require(StoreFixture.json(refund)["signedPayload"] as? String)
                #expect(
                    try await a.execute(
                        uri: "/api/v1/store/notifications", method: .post, headers: [.contentType: "application/json"],
                        body: StoreFixture.body(["signedPayload": payload])
                    ).status == .ok)
                let after = try await onB.call(.get, "/api/v1/downloads/colorado")
                #expect(after.status == .forbidden && StoreFixture.errorCode(after) == "revoked", "\(after.status)")
                #expect(try await b.execute(uri: tile, method: .get).status == .forbidden)
            }
        }
    }
}
