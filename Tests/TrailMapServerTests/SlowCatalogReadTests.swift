import Catalog
import CatalogPostgres
import Foundation
import Hummingbird
import HummingbirdTesting
import Synchronization
import Testing
@testable import TrailMapServer
import TrailMapTestSupport

/// Tile-loop requests share the catalog reads they wait for (`TileAccess.read`). A read that
/// began before a request arrived must not answer it with what held before: what a request takes
/// holds from its arrival on, as on Hummingbird's path, which reads for itself. A real
/// PostgreSQL catalog, with a table locked from psql, keeps a read running for as long as the
/// test needs.
@Suite struct SlowCatalogReadTests {
    /// A PostgreSQL catalog with the fixture's products, and a server on it.
    struct Setup {
        let f: StoreFixture
        let url: String
        let catalog: PostgresCatalog
        let app: Application<TileResponder>
        let access: TileAccess

        init() async throws {
            f = try await computed { try StoreFixture() }
            url = try await PostgresTestServer.freshDatabase()
            catalog = try await ReplicaTests.open(url)
            _ = try await catalog.publish(try ProductFile.load(path: f.tiles.dir.file("products.json")), tilesDirectory: f.tiles.dir.path)
            app = try ReplicaTests.app(f, catalog)
            access = try #require(app.responder.access)
        }

        /// The lock holder's psql session, by name (tests run side by side, each with its own).
        let holderName = "trailmap_lock_\(UUID().uuidString.prefix(8))"

        /// Holds `table` locked from a psql session of its own until `release`; returns once the
        /// lock is held.
        func lock(_ table: String) async throws -> Task<Void, Never> {
            let holder = "\(url)&application_name=\(holderName)"
            let session = Task {
                _ = try? await offThePool {
                    try PostgresTestServer.psql(holder, "BEGIN; LOCK TABLE \(table) IN ACCESS EXCLUSIVE MODE; SELECT pg_sleep(120)")
                }
            }
            try await until("the lock on \(table) is held") {
                try await psql(
                    """
                    SELECT count(*) FROM pg_locks l JOIN pg_class c ON c.oid = l.relation
                    WHERE c.relname = '\(table)' AND l.mode = 'AccessExclusiveLock' AND l.granted
                    """) == ["1"]
            }
            return session
        }

        /// Waits until `count` catalog queries wait for a lock.
        func untilAQueryWaits(count: Int = 1) async throws {
            try await until("\(count) catalog queries wait for the lock") {
                try await psql(
                    "SELECT count(*) >= \(count) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'")
                    == ["t"]
            }
        }

        /// Ends the lock holder's transaction (its sleep cancelled).
        func release(_ session: Task<Void, Never>) async throws {
            _ = try await psql("SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE application_name = '\(holderName)'")
            await session.value
        }

        func psql(_ sql: String) async throws -> [String] {
            let url = url
            return try await offThePool { try PostgresTestServer.psql(url, sql) }
        }

        /// Polls `condition` (60 s only guards a hang).
        func until(_ what: String, _ condition: () async throws -> Bool) async throws {
            let deadline = ContinuousClock.now + .seconds(60)
            while try await !condition() {
                guard ContinuousClock.now < deadline else { throw TestTimeout(what: what) }
                try await Task.sleep(for: .milliseconds(20))
            }
        }
    }

    struct TestTimeout: Error { var what: String }

    /// A credential refused by a check during which a change to purchases, accounts or sessions
    /// went through this server (`TileGrants.clear`, as after a purchase) is left to
    /// Hummingbird's path, which checks again; without such a change the refusal is kept. A
    /// request that arrives after the change has a check of its own.
    @Test func aRefusalThatMayPredateAPurchaseIsNotKept() async throws {
        let s = try await Setup()
        defer { s.catalog.close() }
        try await s.app.test(.live) { client in
            let ann = try await APIUser.register(client, email: "ann@example.com")
            let needed = TileGrants.Needed(credential: .init(kind: .bearer, text: ann.token), product: "colorado")
            for change in [false, true] {
                let lock = try await s.lock("entitlements")
                let checks = s.access.checks.load(ordering: .relaxed)
                let reading = Task { await s.access.read(.grant(needed)) }
                try await s.untilAQueryWaits()
                var later: Task<APIError?, Never>?
                if change {
                    s.access.grants.clear()
                    // A request that arrives after the change does not join the check begun
                    // before it: it starts its own, whose refusal holds.
                    later = Task { await s.access.read(.grant(needed)) }
                    try await s.untilAQueryWaits(count: 2)
                }
                try await s.release(lock)
                let refusal = await reading.value
                #expect(s.access.checks.load(ordering: .relaxed) == checks + (change ? 2 : 1))
                if let later {
                    #expect(refusal == nil, "a refusal checked across a change was kept: \(String(describing: refusal))")
                    let own = await later.value
                    #expect(own?.status == .forbidden && own?.code == "not_entitled", "\(String(describing: own))")
                } else {
                    #expect(refusal?.status == .forbidden && refusal?.code == "not_entitled")
                }
            }
        }
    }

    /// A request that joins a read of the paid map which began more than the map's lifetime
    /// before it arrived (the catalog slow) takes a map read after it arrived.
    @Test func aPaidMapReadThatBeganLongBeforeTheRequestIsReadAgain() async throws {
        let s = try await Setup()
        defer { s.catalog.close() }
        _ = try await s.access.accessMap()
        let read = ContinuousClock.now
        let lock = try await s.lock("products")
        try await Task.sleep(until: read + TileAccess.mapLifetime / 2 + .milliseconds(100), clock: .continuous)
        // Past half its lifetime, a look at the map starts its re-read in the background.
        #expect(try s.access.cachedPaidProduct(tileset: "co", allowStale: true, onEventLoop: true) == "colorado")
        try await s.untilAQueryWaits()
        try await Task.sleep(for: TileAccess.mapLifetime)
        // A request arrives: the map is stale, so it waits, and joins the read that is running.
        #expect(throws: StaleAccessMap.self) { try s.access.cachedPaidProduct(tileset: "co", onEventLoop: true) }
        let reads = s.access.reads.load(ordering: .relaxed)
        let reading = Task { await s.access.read(.paidMap) }
        try await Task.sleep(for: .milliseconds(200))
        try await s.release(lock)
        #expect(await reading.value == nil)
        // One read after the one the request joined, begun after the request arrived, as
        // Hummingbird's path would read for itself.
        #expect(s.access.reads.load(ordering: .relaxed) == reads + 1)
    }
}
