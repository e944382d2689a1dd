import Catalog
import Foundation
import Testing
import TrailMapTestSupport

/// Accounts, sessions, logout, devices and the shared login throttle on a real PostgreSQL.
@Suite struct PostgresAccountTests {
    @Test func registerLoginAuthenticateLogout() async throws {
        let f = try await PostgresFixture()
        let a = try await f.account()
        let s = try await f.login("ANN@example.com")
        #expect(s.account == a)
        #expect(try await f.catalog.authenticate(token: s.token) == a)
        #expect(try await f.catalog.sessionIsLive(tag: CatalogDatabase.sessionTag(token: s.token), accountID: a.id))
        try await f.catalog.logout(token: s.token)
        #expect(await PostgresFixture.code { _ = try await f.catalog.authenticate(token: s.token) } == "unauthorized")
        #expect(try await !f.catalog.sessionIsLive(tag: CatalogDatabase.sessionTag(token: s.token), accountID: a.id))
    }

    @Test func badRegistrationsAreRefused() async throws {
        let f = try await PostgresFixture()
        _ = try await f.account()
        #expect(await PostgresFixture.code { _ = try await f.register("Ann@Example.com", "another long one") } == "email_taken")
        #expect(await PostgresFixture.code { _ = try await f.register("bob@example.com", "short") } == "weak_password")
        for email in ["", "bob", "bob@example", "'; DROP TABLE accounts; --@x.io"] {
            #expect(await PostgresFixture.code { _ = try await f.register(email, "long enough password") } == "invalid_email")
        }
    }

    @Test func expiredSessionsAreRefused() async throws {
        let f = try await PostgresFixture(sessionLifetime: -1)
        _ = try await f.account()
        let s = try await f.login("ann@example.com")
        #expect(await PostgresFixture.code { _ = try await f.catalog.authenticate(token: s.token) } == "unauthorized")
    }

    @Test func aSessionFromOneServerWorksOnAnother() async throws {
        let f = try await PostgresFixture()
        let other = try await f.another()
        defer { other.close() }
        let a = try await f.account()
        let s = try await f.login("ann@example.com", on: other)
        #expect(try await f.catalog.authenticate(token: s.token) == a)
        try await f.catalog.logout(token: s.token)
        #expect(await PostgresFixture.code { _ = try await other.authenticate(token: s.token) } == "unauthorized")
    }

    @Test func devicesBelongToTheirAccount() async throws {
        let f = try await PostgresFixture()
        try await f.publishSample()
        let ann = try await f.account(), bob = try await f.account("bob@example.com")
        let phone = try await f.catalog.addDevice(account: ann, name: "  phone ")
        #expect(phone.name == "phone")
        #expect(await PostgresFixture.code {
            try await f.catalog.setInstalled(productID: "base", version: 1, deviceID: phone.id, account: bob)
        } == "unknown_device")
    }

    @Test func wrongPasswordsAreThrottledAcrossServers() async throws {
        let f = try await PostgresFixture()
        let other = try await f.another()
        defer { other.close() }
        _ = try await f.account()
        // Five wrong passwords, spread over two servers: the sixth attempt waits on either.
        for i in 0..<5 {
            #expect(await PostgresFixture.code { _ = try await f.login("ann@example.com", "wrong password", on: i % 2 == 0 ? nil : other) }
                    == "invalid_credentials")
        }
        #expect(await PostgresFixture.code { _ = try await f.login("ann@example.com", on: other) } == "too_many_attempts")
        #expect(await PostgresFixture.code { _ = try await f.login("ann@example.com") } == "too_many_attempts")
        #expect(await f.catalog.loginWait(email: "ann@example.com", address: nil) ?? 0 >= 1)
        #expect(await other.loginWait(email: "bob@example.com", address: nil) == nil)
    }

    @Test func parallelGuessesOnTwoServersCannotSlipPastThePerEmailCount() async throws {
        let f = try await PostgresFixture()
        let other = try await f.another()
        defer { other.close() }
        _ = try await f.account()
        let outcomes = await withTaskGroup(of: String.self) { group in
            for i in 0..<30 {
                group.addTask { await PostgresFixture.code { _ = try await f.login("ann@example.com", "wrong password", on: i % 2 == 0 ? nil : other) } }
            }
            return await group.reduce(into: [String: Int]()) { $0[$1, default: 0] += 1 }
        }
        #expect(outcomes["invalid_credentials"] == 5, "\(outcomes)")
        #expect(outcomes["too_many_attempts"] == 25, "\(outcomes)")
    }

    @Test func oneAddressGuessingManyEmailsIsThrottledAndSuccessesDoNotCount() async throws {
        let f = try await PostgresFixture()
        _ = try await f.account()
        for _ in 0..<25 { _ = try await f.login("ann@example.com", address: "192.0.2.1") }
        #expect(await f.catalog.loginWait(email: "ann@example.com", address: "192.0.2.1") == nil)
        for i in 0..<20 {
            #expect(await PostgresFixture.code { _ = try await f.login("user\(i)@example.com", "wrong password", address: "203.0.113.7") }
                    == "invalid_credentials")
        }
        #expect(await PostgresFixture.code { _ = try await f.login("ann@example.com", address: "203.0.113.7") } == "too_many_attempts")
        #expect(try await f.login("ann@example.com", address: "198.51.100.1").account.email == "ann@example.com")
    }

    @Test func registrationsFromOneAddressAreThrottled() async throws {
        let f = try await PostgresFixture()
        for i in 0..<20 { _ = try await f.register("farm\(i)@example.com", "long enough password", address: "203.0.113.9") }
        #expect(await PostgresFixture.code { _ = try await f.register("farm20@example.com", "long enough password", address: "203.0.113.9") }
                == "too_many_attempts")
        _ = try await f.register("farm20@example.com", "long enough password", address: "198.51.100.2")
    }
}
