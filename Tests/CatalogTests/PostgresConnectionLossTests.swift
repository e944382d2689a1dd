import Catalog
import CatalogPostgres
import Foundation
import Synchronization
import Testing
import TrailMapTestSupport

/// PostgreSQL going away under operations in flight, on a cluster of the test's own: every
/// operation answers (done, or `CatalogError.database`), none waits forever, and what was
/// recorded was recorded whole. (postgres-nio never answers a query written to a connection
/// that has closed: the catalog must not wait for one; see `PostgresClient.lease`.)
@Suite struct PostgresConnectionLossTests {
    @Test(arguments: [PostgresCluster.StopMode.immediate, .fast])
    func operationsInFlightWhenPostgreSQLStopsAllAnswer(_ mode: PostgresCluster.StopMode) async throws {
        let cluster = try await PostgresCluster.started()
        defer { cluster.remove() }
        // Each operation waits at most 6 s for a connection: enough for the set-up while a full
        // run on two cores loads the machine (2 s was not, once), short beside the 60 s limit.
        let catalog = try await retrying {
            try await CatalogFixture.openPostgres(cluster.url(options: "sslmode=disable&connect_timeout=6"))
        }
        defer { catalog.close() }
        let files = CatalogFiles()
        let sample = try files.writeSample()
        _ = try await retrying { try await catalog.publish(sample, tilesDirectory: files.dir.path) }
        var accounts = [Account]()
        for i in 0..<8 {
            accounts.append(
                try await retrying {
                    try await CatalogFixture.kdf.run { () throws(CatalogError) in
                        try catalog.register(email: "buyer\(i)@example.com", password: "correct horse battery")
                    }
                })
        }
        // Each buyer buys again and again (each purchase a transaction) and a reader reads,
        // until the database is gone; PostgreSQL stops while they run.
        var operations: [@Sendable () async -> String] = accounts.enumerated().map { i, a in
            {
                for k in 0..<10_000 {
                    let code = await CatalogFixture.code {
                        _ = try await catalog.recordPurchase(CatalogFixture.purchase("colorado", id: "\(i)-\(k)"), account: a)
                    }
                    if code != "ok" { return code }
                }
                return "never stopped"
            }
        }
        let reader = accounts[0]
        operations += (0..<2).map { _ in
            {
                for _ in 0..<10_000 {
                    let code = await CatalogFixture.code { _ = try await catalog.entitlements(account: reader) }
                    if code != "ok" { return code }
                }
                return "never stopped"
            }
        }
        // PostgreSQL stops once a purchase is recorded (at most 30 s on): a fixed wait was, on a
        // loaded machine, sometimes over before the first one.
        let answers = await Self.answers(operations, limit: .seconds(60)) {
            let until = Date().addingTimeInterval(30)
            while Date() < until, (try? await cluster.psql("SELECT COUNT(*) FROM transactions")) ?? ["0"] == ["0"] {
                try? await Task.sleep(for: .milliseconds(100))
            }
            try? await cluster.stop(mode)
        }
        #expect(answers == Array(repeating: "database", count: operations.count), "\(answers)")

        // Back: every transaction recorded came with its audit line (nothing half-recorded), and
        // each buyer holds one entitlement.
        try await cluster.start()
        var back = false
        for _ in 0..<75 where !back {
            back = (try? await catalog.entitlements(account: accounts[0])) != nil
            if !back { try await Task.sleep(for: .milliseconds(200)) }
        }
        #expect(back, "the catalog answers again after PostgreSQL restarts")
        let transactions = try await cluster.psql("SELECT COUNT(*) FROM transactions")
        #expect(transactions != ["0"])
        #expect(try await cluster.psql("SELECT COUNT(*) FROM audit_log WHERE action IN ('grant', 'purchase_recorded')") == transactions)
        let buyers = try await cluster.psql("SELECT COUNT(DISTINCT account_id) FROM transactions")
        let entitlements = try await cluster.psql("SELECT COUNT(*) FROM entitlements")
        #expect(buyers == entitlements)
    }

    /// Runs `operations` and `alongside` at once and returns each operation's answer, or
    /// "no answer" for one still waiting after `limit` (left behind: a test that hangs finds nothing).
    static func answers(
        _ operations: [@Sendable () async -> String], limit: Duration,
        alongside: @escaping @Sendable () async -> Void
    ) async -> [String] {
        let (stream, continuation) = AsyncStream.makeStream(of: (Int, String)?.self)
        for (i, operation) in operations.enumerated() {
            Task { continuation.yield((i, await operation())) }
        }
        Task { await alongside() }
        let deadline = Task {
            guard (try? await Task.sleep(for: limit)) != nil else { return }
            continuation.yield(nil)
        }
        defer { deadline.cancel() }
        var answers = Array(repeating: "no answer", count: operations.count), count = 0
        for await next in stream {
            guard let (i, answer) = next else { break }
            answers[i] = answer
            count += 1
            if count == operations.count { break }
        }
        return answers
    }
}
