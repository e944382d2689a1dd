import Catalog
import CatalogPostgres
import Foundation
import Testing
import TrailMapTestSupport

/// Several servers (catalog instances, each with its own connection pool) on one PostgreSQL
/// catalog at once: sessions, the shared login throttle and purchases race-free across them.
/// What one catalog does alone is in the suites that run on both backends.
@Suite struct PostgresCrossServerTests {
    @Test func aSessionFromOneServerWorksOnAnother() async throws {
        let f = try await CatalogFixture(.postgres)
        let other = try await f.another()
        defer { other.close() }
        let a = try await f.account()
        let s = try await f.login("ann@example.com", on: other)
        #expect(try await f.store.authenticate(token: s.token) == a)
        try await f.store.logout(token: s.token)
        #expect(await CatalogFixture.code { _ = try await other.authenticate(token: s.token) } == "unauthorized")
    }

    /// A long first lock on both servers, so that it holds however long a loaded machine takes.
    @Test func wrongPasswordsAreThrottledAcrossServers() async throws {
        let f = try await CatalogFixture(.postgres, firstLock: 600)
        let other = try await f.another()
        defer { other.close() }
        _ = try await f.account()
        // Five wrong passwords, spread over two servers: the sixth attempt waits on either.
        for i in 0..<5 {
            #expect(
                await CatalogFixture.code { _ = try await f.login("ann@example.com", "wrong password", on: i % 2 == 0 ? nil : other) }
                    == "invalid_credentials")
        }
        #expect(await CatalogFixture.code { _ = try await f.login("ann@example.com", on: other) } == "too_many_attempts")
        #expect(await CatalogFixture.code { _ = try await f.login("ann@example.com") } == "too_many_attempts")
        #expect(await other.loginWait(email: "ann@example.com", address: nil) ?? 0 >= 1)
    }

    /// A long first lock on both servers: with the default 2 s, a lock set by the fifth guess
    /// could end before a loaded machine (a CI run took 54 s) had tried the other 25, and one more
    /// guess was rightly admitted then.
    @Test func parallelGuessesOnTwoServersCannotSlipPastThePerEmailCount() async throws {
        let f = try await CatalogFixture(.postgres, firstLock: 600)
        let other = try await f.another()
        defer { other.close() }
        _ = try await f.account()
        let outcomes = await withTaskGroup(of: String.self) { group in
            for i in 0..<30 {
                group.addTask {
                    await CatalogFixture.code { _ = try await f.login("ann@example.com", "wrong password", on: i % 2 == 0 ? nil : other) }
                }
            }
            return await group.reduce(into: [String: Int]()) { $0[$1, default: 0] += 1 }
        }
        #expect(outcomes["invalid_credentials"] == 5, "\(outcomes)")
        #expect(outcomes["too_many_attempts"] == 25, "\(outcomes)")
    }

    @Test func nServersRecordingOneTransactionAtOnceGrantOneEntitlement() async throws {
        let f = try await CatalogFixture(.postgres)
        try await f.publishSample()
        let a = try await f.account()
        var servers = [PostgresCatalog]()
        for _ in 0..<6 { servers.append(try await f.another()) }
        defer { servers.forEach { $0.close() } }
        let list = servers
        // Each server twice, all at once: one new entitlement, every other answer "already owned".
        let outcomes = try await withThrowingTaskGroup(of: Bool.self) { group in
            for i in 0..<12 {
                group.addTask {
                    try await list[i % list.count].recordPurchase(CatalogFixture.purchase("colorado", id: "race"), account: a).alreadyOwned
                }
            }
            return try await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(outcomes.filter { !$0 }.count == 1, "\(outcomes)")
        #expect(try await f.store.entitlements(account: a).count == 1)
        #expect(try await f.store.auditLog(limit: 100).filter { $0.action == "grant" }.count == 1)
        // Different transactions of one product at once: still one entitlement.
        let others = try await withThrowingTaskGroup(of: Bool.self) { group in
            for i in 0..<6 {
                group.addTask { try await list[i].recordPurchase(CatalogFixture.purchase("rocky", id: "r\(i)"), account: a).alreadyOwned }
            }
            return try await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(others.filter { !$0 }.count == 1, "\(others)")
        #expect(try await f.store.entitlements(account: a).filter { $0.productId == "rocky" }.count == 1)
        #expect(try await f.count("transactions") == 7)
    }
}
