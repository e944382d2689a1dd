@testable import Catalog
@testable import CatalogPostgres
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing
@testable import TrailMapServer
import TrailMapTestSupport

/// Losing the PostgreSQL catalog while the server runs (issue "Scale-out"): every request that
/// needs the database answers 503 with a JSON body (or a result it holds), never a 500 and never
/// a hang; no purchase is half-recorded; when the database returns, the server recovers by
/// itself, its change listener included. Over real HTTP, on a PostgreSQL cluster of the test's
/// own (the shared one serves other tests at the same time).
@Suite struct DatabaseLossTests {
    /// A request made while the database is away or after it returns, and what it may answer.
    struct Probe: Sendable {
        let name: String
        /// A result it may answer from memory while the database is away (else only 503).
        let mayAnswerFromMemory: Bool
        let call: @Sendable () async throws -> TestResponse
    }

    @Test(arguments: [PostgresCluster.StopMode.immediate, .fast])
    func theServerAnswers503WithoutTheDatabaseAndRecoversWhenItReturns(_ mode: PostgresCluster.StopMode) async throws {
        let cluster = try await PostgresCluster.started()
        defer { cluster.remove() }
        // Each catalog operation waits at most 2 s for a connection.
        let url = cluster.url(options: "sslmode=disable&connect_timeout=2")
        let f = try await computed { try StoreFixture() }
        let products = f.tiles.dir.file("products.json")
        let catalog = try await retrying { try await ReplicaTests.open(url) }
        defer { catalog.close() }
        _ = try await retrying { try await catalog.publish(try ProductFile.load(path: products), tilesDirectory: f.tiles.dir.path) }

        try await ReplicaTests.app(f, catalog).test(.live) { client in
            // While PostgreSQL runs: a session, a purchase, a tile token, a paid tile. (Each step
            // is tried again on a 503: a full test run on two cores has stalled new connections
            // past this catalog's 2 s; what is tested is the outage below.)
            let ann = try await retrying { try await APIUser.register(client, email: "ann@example.com") }
            #expect(try await Self.pastStalls { try await ann.buy("colorado") }.status == .created)
            let grant = StoreFixture.json(
                try await Self.pastStalls { try await ann.call(.post, "/api/v1/tile-tokens", ["productId": "colorado"]) })
            let tile = "/tiles/co/3/1/3.png?token=\(try #require(grant["token"] as? String))"
            #expect(try await Self.pastStalls { try await client.execute(uri: tile, method: .get) }.status == .ok)
            #expect(try await Self.pastStalls { try await client.execute(uri: "/api/v1/catalog", method: .get) }.status == .ok)
            // A purchase of Utah signed by the store now, posted while the database is away.
            let signed = StoreFixture.json(try await ann.call(.post, "/api/v1/sandbox/transactions", ["productId": "utah"]))
            let jws = try #require(signed["signedTransaction"] as? String)
            let probes = Self.probes(client, ann, jws: jws, tile: tile)
            // Purchases of Colorado by four others, posted as PostgreSQL goes away.
            var buyers = [(user: APIUser, jws: String)]()
            for i in 0..<4 {
                let user = try await retrying { try await APIUser.register(client, email: "buyer\(i)@example.com") }
                let t = StoreFixture.json(try await user.call(.post, "/api/v1/sandbox/transactions", ["productId": "colorado"]))
                buyers.append((user, try #require(t["signedTransaction"] as? String)))
            }

            let inFlight = try await withThrowingTaskGroup(of: TestResponse?.self) { group in
                for (user, jws) in buyers {
                    group.addTask { try await user.call(.post, "/api/v1/purchases", ["signedTransaction": jws]) }
                }
                group.addTask {
                    try await cluster.stop(mode)
                    return nil
                }
                return try await group.reduce(into: [TestResponse]()) { if let r = $1 { $0.append(r) } }
            }
            for r in inFlight {
                #expect(
                    r.status == .created || (r.status == .serviceUnavailable && StoreFixture.errorCode(r) == "database"),
                    "a purchase as PostgreSQL stops: \(r.status) \(String(buffer: r.body).prefix(300))")
            }
            let outage = try await Self.answers(probes)
            for (probe, r) in zip(probes, outage) {
                let code = StoreFixture.errorCode(r)
                let fromMemory = probe.mayAnswerFromMemory && r.status == .ok
                #expect(
                    fromMemory || (r.status == .serviceUnavailable && code == "database"),
                    "\(probe.name) without the database: \(r.status) \(String(buffer: r.body).prefix(300))")
            }

            try await cluster.start()
            // Back by itself (polled: the connection pool retries with a growing backoff; 15 s only guards a hang).
            var back = false
            for _ in 0..<75 where !back {
                back = try await probes[0].call().status == .ok
                if !back { try await Task.sleep(for: .milliseconds(200)) }
            }
            #expect(back, "logging in works again after PostgreSQL restarts")
            let recovered = try await Self.answers(probes)
            for (probe, r) in zip(probes, recovered) {
                let expected: HTTPResponse.Status = probe.name == "purchase" ? .created : .ok
                #expect(r.status == expected, "\(probe.name) after PostgreSQL restarted: \(r.status) \(String(buffer: r.body).prefix(300))")
            }
            // The purchase refused during the outage was recorded once, when posted again.
            let txn = try #require(try Self.originalTransaction(of: jws))
            #expect(try await cluster.psql("SELECT COUNT(*) FROM entitlements WHERE product_id = 'utah'") == ["1"])
            #expect(try await cluster.psql("SELECT COUNT(*) FROM transactions WHERE original_transaction_id = '\(txn)'") == ["1"])
            #expect(try await ann.call(.post, "/api/v1/purchases", ["signedTransaction": jws]).status == .ok, "posted again: already owned")
            // Each purchase in flight at the stop was recorded whole or not at all; posted again, it is recorded once.
            for (user, jws) in buyers {
                let txn = try #require(try Self.originalTransaction(of: jws))
                let before = try await Self.recorded(cluster, txn)
                #expect(before == [0, 0] || before == [1, 1], "transaction and entitlement rows of \(txn): \(before)")
                let again = try await user.call(.post, "/api/v1/purchases", ["signedTransaction": jws]).status
                #expect(again == (before == [1, 1] ? .ok : .created))
                #expect(try await Self.recorded(cluster, txn) == [1, 1])
            }

            // The change listener is back: a publish by another catalog instance shows in the
            // server's anonymous catalog, and the listener holds the database's stamp.
            let publisher = try await retrying { try await ReplicaTests.open(url) }
            defer { publisher.close() }
            try Self.retitle(products, "utah", "Utah after the outage")
            _ = try await retrying { try await publisher.publish(try ProductFile.load(path: products), tilesDirectory: f.tiles.dir.path) }
            let stamp = try #require(Int(try await cluster.psql("SELECT change_stamp FROM catalog_state").first ?? ""))
            var seen = false, held: Int?
            for _ in 0..<75 where !seen || held != stamp {
                seen = String(buffer: try await client.execute(uri: "/api/v1/catalog", method: .get).body).contains("Utah after the outage")
                held = catalog.changes.stamp
                if !seen || held != stamp { try await Task.sleep(for: .milliseconds(200)) }
            }
            #expect(seen, "the publish shows in the anonymous catalog")
            #expect(held == stamp, "the listener holds the stamp again (LISTEN re-established)")
        }
    }

    /// Login, the signed-in catalog, entitlements, a purchase, a paid tile with a tile token and
    /// the anonymous catalog (login first: it is the one polled for recovery).
    static func probes(_ client: any TestClientProtocol, _ ann: APIUser, jws: String, tile: String) -> [Probe] {
        let credentials = #"{"email": "ann@example.com", "password": "correct horse battery"}"#
        return [
            Probe(name: "login", mayAnswerFromMemory: false) {
                try await client.execute(
                    uri: "/api/v1/sessions", method: .post, headers: [.contentType: "application/json"],
                    body: ByteBuffer(string: credentials))
            },
            Probe(name: "signed-in catalog", mayAnswerFromMemory: true) { try await ann.call(.get, "/api/v1/catalog") },
            Probe(name: "entitlements", mayAnswerFromMemory: true) { try await ann.call(.get, "/api/v1/entitlements") },
            Probe(name: "purchase", mayAnswerFromMemory: false) {
                try await ann.call(.post, "/api/v1/purchases", ["signedTransaction": jws])
            },
            Probe(name: "paid tile", mayAnswerFromMemory: true) { try await client.execute(uri: tile, method: .get) },
            Probe(name: "anonymous catalog", mayAnswerFromMemory: true) { try await client.execute(uri: "/api/v1/catalog", method: .get) }
        ]
    }

    /// `call`'s response, called again (up to 5 times, 0.5-4 s apart) while it is a 503 or the
    /// call throws.
    static func pastStalls(_ call: () async throws -> TestResponse) async throws -> TestResponse {
        try await retrying(again: { $0.status == .serviceUnavailable }, call)
    }

    /// Every probe's answer, asked all at once. The test client gives up on a request after 20 s
    /// (a hang fails the test); the server's own bound is the catalog's 2 s connect timeout.
    static func answers(_ probes: [Probe]) async throws -> [TestResponse] {
        try await withThrowingTaskGroup(of: (Int, TestResponse).self) { group in
            for (i, p) in probes.enumerated() { group.addTask { (i, try await p.call()) } }
            var answers = [TestResponse?](repeating: nil, count: probes.count)
            for try await (i, r) in group { answers[i] = r }
            return answers.compactMap { $0 }
        }
    }

    /// How many transaction rows and entitlement rows the database holds for an original transaction.
    static func recorded(_ cluster: PostgresCluster, _ txn: String) async throws -> [Int] {
        var counts = [Int]()
        for table in ["transactions", "entitlements"] {
            let rows = try await cluster.psql("SELECT COUNT(*) FROM \(table) WHERE original_transaction_id = '\(txn)'")
            counts.append(Int(rows.first ?? "") ?? -1)
        }
        return counts
    }

    /// The original transaction id in a signed transaction's payload.
    static func originalTransaction(of jws: String) throws -> String? {
        let part = String(jws.split(separator: ".")[1])
        let padded =
            part.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
            + String(repeating: "=", count: (4 - part.count % 4) % 4)
        guard let data = Data(base64Encoded: padded),
            let payload = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { return nil }
        return payload["originalTransactionId"] as? String
    }

    /// Gives `product` a new title in the product file at `path`.
    static func retitle(_ path: String, _ product: String, _ title: String) throws {
        var json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any] ?? [:]
        var entries = json["products"] as? [[String: Any]] ?? []
        for i in entries.indices where entries[i]["productId"] as? String == product { entries[i]["title"] = title }
        json["products"] = entries
        try JSONSerialization.data(withJSONObject: json).write(to: URL(fileURLWithPath: path))
    }
}
