@testable import Catalog
@testable import CatalogPostgres
import Foundation
import PostgresNIO
import Testing
import TrailMapTestSupport

/// What several servers on one PostgreSQL catalog share (tile-token keys, the change stamp),
/// migrations, and an unreachable database.
@Suite struct PostgresSharedStateTests {
    static let session = "0123456789abcdef"

    @Test func tileTokenKeysAreSharedAndRevocationEndsThemAll() async throws {
        let f = try await CatalogFixture(.postgres)
        let other = try await f.another()
        defer { other.close() }
        let serverA = TileTokens(catalog: f.store), serverB = TileTokens(catalog: other)
        let now = Date()
        let t = try await serverA.issue(accountID: "a1", productID: "colorado", session: Self.session, now: now)
        #expect(try await serverB.holder(of: t.token, productID: "colorado", now: now)?.accountID == "a1")
        _ = try await other.revokeTileTokenKeys(now: now)
        let fromB = try await TileTokens(catalog: other).issue(accountID: "a2", productID: "colorado", session: Self.session, now: now)
        #expect(try await serverA.holder(of: fromB.token, productID: "colorado", now: now)?.accountID == "a2")
        #expect(try await serverA.holder(of: t.token, productID: "colorado", now: now) == nil)
    }

    @Test func keysRotateOnceWhenServersRotateTogether() async throws {
        let f = try await CatalogFixture(.postgres)
        let other = try await f.another()
        defer { other.close() }
        let t0 = Date(timeIntervalSince1970: 2_000_000_000)
        let first = try await f.store.tileTokenKeys(now: t0, rotateAfter: 86_400, keep: 3600)
        let later = t0.addingTimeInterval(86_400 + 10)
        async let a = f.store.tileTokenKeys(now: later, rotateAfter: 86_400, keep: 3600)
        async let b = other.tileTokenKeys(now: later, rotateAfter: 86_400, keep: 3600)
        let (ka, kb) = try await (a, b)
        #expect(ka.map(\.id) == kb.map(\.id) && ka.count == 2 && ka.last?.id == first.first?.id)
        let muchLater = later.addingTimeInterval(3600 + 20)
        #expect(try await other.tileTokenKeys(now: muchLater, rotateAfter: 86_400, keep: 3600).map(\.id) == [ka[0].id])
    }

    @Test func theChangeStampMovesWhenAnotherServerWrites() async throws {
        let f = try await CatalogFixture(.postgres)
        let other = try await f.another()
        defer { other.close() }
        let s0 = try await f.store.changeStamp()
        #expect(try await f.store.changeStamp() == s0, "reading moves nothing")
        let a = try await f.account(on: other)
        let s1 = try await Self.stamp(of: f.store, movingFrom: s0)
        #expect(s1 != s0, "a write on another server shows")
        _ = try await other.addDevice(account: a, name: "phone")
        #expect(try await Self.stamp(of: f.store, movingFrom: s1) != s1)
    }

    /// The stamp, polled until it differs from `old` (NOTIFY arrives on commit, asynchronously;
    /// 10 s only guards a hang).
    static func stamp(of catalog: any CatalogStore, movingFrom old: Int) async throws -> Int {
        for _ in 0..<1000 {
            let s = try await catalog.changeStamp()
            if s != old { return s }
            try await Task.sleep(for: .milliseconds(10))
        }
        return old
    }

    @Test func theStampIsHeldFromListenAndFollowsOtherServersWrites() async throws {
        let f = try await CatalogFixture(.postgres)
        let catalog = try f.postgres
        let other = try await f.another()
        defer { other.close() }
        for _ in 0..<1000 where catalog.changes.stamp == nil { try await Task.sleep(for: .milliseconds(10)) }
        let held = try #require(catalog.changes.stamp, "listening after opening")
        #expect(try await catalog.changeStamp() == held)
        _ = try await f.account(on: other)
        for _ in 0..<1000 where catalog.changes.stamp == held { try await Task.sleep(for: .milliseconds(10)) }
        let after = try #require(catalog.changes.stamp)
        #expect(after > held, "the other server's write was notified")
        // (Read in the database: `other` answers from its own listener, which may not have had the NOTIFY yet.)
        #expect(try await f.rows("SELECT change_stamp FROM catalog_state") == ["\(after)"], "the notified stamp is the database's")
    }

    /// A statement that fails while it runs (after its rows are described) is an error where it
    /// is run, not a "current transaction is aborted" at the next statement.
    @Test func aStatementFailingAsItRunsFailsThere() async throws {
        let catalog = try await CatalogFixture.openPostgres(try await PostgresTestServer.freshDatabase())
        defer { catalog.close() }
        do {
            _ = try await catalog.transaction(bumpsStamp: false) { conn in
                try await conn.run("SELECT 1 / (random() * 0)::int", catalog.logger)
                try await conn.run("SELECT 1", catalog.logger)
                return 0
            }
            Issue.record("a division by zero went unnoticed")
        } catch {
            #expect("\(error)".contains("division by zero") && "\(error)".contains("22012"), "\(error)")
        }
        #expect(try await catalog.changeStamp() == 1, "the connection is usable after the rollback")
    }

    @Test func serversOpeningANewCatalogTogetherMigrateItOnce() async throws {
        let url = try await PostgresTestServer.freshDatabase()
        let catalogs = try await withThrowingTaskGroup(of: PostgresCatalog.self) { group in
            for _ in 0..<4 { group.addTask { try await CatalogFixture.openPostgres(url) } }
            return try await group.reduce(into: [PostgresCatalog]()) { $0.append($1) }
        }
        defer { catalogs.forEach { $0.close() } }
        #expect(try await catalogs[0].products().isEmpty)
        #expect(try await catalogs[3].changeStamp() == 1)
    }

    @Test func anUnreachableDatabaseIsAClearErrorSoon() async throws {
        let config = try PostgresCatalogConfiguration(url: "postgres://nobody:secret@127.0.0.1:1/none?connect_timeout=1&sslmode=disable")
        do {
            _ = try await PostgresCatalog.open(config)
            Issue.record("opened a catalog on a closed port")
        } catch {
            #expect(error.code == "database")
            #expect(error.description.contains("cannot reach") && error.description.contains("127.0.0.1:1/none"), "\(error)")
            #expect(!error.description.contains("secret"))
        }
        // How soon: CatalogLocationCLITests times it in a process of its own (here, the other
        // suites' synchronous work can hold the concurrency pool's threads for many seconds).
    }

    @Test func urlsParseAndBadOnesSayWhy() throws {
        let tcp = try PostgresCatalogConfiguration(url: "postgresql://ann:p%40ss@db.example.com:6543/trail?pool_max=4")
        #expect(tcp.endpoint == .tcp(host: "db.example.com", port: 6543) && tcp.username == "ann" && tcp.password == "p@ss")
        #expect(tcp.database == "trail" && tcp.maximumConnections == 4 && tcp.tls == .prefer)
        #expect(tcp.description == "postgres://ann:***@db.example.com:6543/trail")
        let socket = try PostgresCatalogConfiguration(url: "postgres://ann@/trail?host=/var/run/postgresql")
        #expect(socket.endpoint == .unixSocket(path: "/var/run/postgresql/.s.PGSQL.5432") && socket.password == nil)
        #expect(try PostgresCatalogConfiguration(url: "postgres://ann@localhost/trail").endpoint == .tcp(host: "localhost", port: 5432))
        for bad in [
            "postgres://localhost/trail", "postgres://ann@localhost", "postgres://ann@localhost/trail?sslmode=maybe",
            "postgres://ann@localhost/trail?pool_max=0", "postgres://ann@localhost/trail?colour=red", "mysql://ann@x/y",
            "postgres://ann:hunter2@/trail"
        ] {
            #expect(throws: CatalogError.self, "\(bad)") { try PostgresCatalogConfiguration(url: bad) }
            do { _ = try PostgresCatalogConfiguration(url: bad) } catch { #expect(!error.description.contains("hunter2")) }
        }
    }
}
