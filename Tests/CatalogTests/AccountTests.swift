import Catalog
import Foundation
import Testing
import TrailMapTestSupport

/// Accounts, sessions, logout, devices and tile tokens, on both backends.
@Suite struct AccountTests {
    @Test(arguments: Backend.allCases)
    func registerLoginAuthenticateLogout(_ backend: Backend) async throws {
        let f = try await CatalogFixture(backend)
        let a = try await f.account()
        let s = try await f.login("ANN@example.com")
        #expect(s.account == a)
        #expect(try await f.store.authenticate(token: s.token) == a)
        let tag = AccountRules.sessionTag(token: s.token)
        #expect(try await f.store.sessionIsLive(tag: tag, accountID: a.id))
        #expect(try await !f.store.sessionIsLive(tag: tag, accountID: "someone-else"))
        try await f.store.logout(token: s.token)
        #expect(await CatalogFixture.code { _ = try await f.store.authenticate(token: s.token) } == "unauthorized")
        #expect(try await !f.store.sessionIsLive(tag: tag, accountID: a.id))
    }

    @Test(arguments: Backend.allCases)
    func tokensAndPasswordsAreStoredOnlyAsHashes(_ backend: Backend) async throws {
        let f = try await CatalogFixture(backend)
        _ = try await f.account()
        let s = try await f.login("ann@example.com")
        let hashes = try await f.rows("SELECT token_hash FROM sessions")
        let stored = try await f.rows("SELECT password_hash FROM accounts")
        #expect(hashes.count == 1 && hashes[0] != s.token && !hashes[0].contains(s.token))
        #expect(stored.count == 1 && stored[0].hasPrefix("scrypt$1024$8$1$") && !stored[0].contains("horse"))
    }

    @Test func defaultPasswordHashingIsStrongScrypt() throws {
        let stored = try PasswordHasher().hash("correct horse battery")
        #expect(stored.hasPrefix("scrypt$32768$8$1$"))
        #expect(PasswordHasher().verify("correct horse battery", against: stored))
        #expect(!PasswordHasher().verify("correct horse batterx", against: stored))
        #expect(!PasswordHasher().verify("x", against: "scrypt$3$8$1$AAAA$AAAA"))
    }

    @Test(arguments: Backend.allCases)
    func badRegistrationsAreRefused(_ backend: Backend) async throws {
        let f = try await CatalogFixture(backend)
        _ = try await f.account()
        #expect(await CatalogFixture.code { _ = try await f.register("Ann@Example.com", "another long one") } == "email_taken")
        #expect(await CatalogFixture.code { _ = try await f.register("bob@example.com", "short") } == "weak_password")
        #expect(
            await CatalogFixture.code { _ = try await f.register("bob@example.com", String(repeating: "x", count: 257)) }
                == "weak_password")
        for email in ["", "bob", "bob@", "@example.com", "bob@example", "b ob@example.com", "'; DROP TABLE accounts; --@x.io"] {
            #expect(await CatalogFixture.code { _ = try await f.register(email, "long enough password") } == "invalid_email", "\(email)")
        }
        #expect(try await f.count("accounts") == 1)
    }

    @Test(arguments: Backend.allCases)
    func wrongPasswordsAreThrottled(_ backend: Backend) async throws {
        // A first lock of 10 minutes: the right password must meet it however loaded the machine is.
        let f = try await CatalogFixture(backend, firstLock: 600)
        _ = try await f.account()
        for _ in 0..<5 {
            #expect(await CatalogFixture.code { _ = try await f.login("ann@example.com", "wrong password") } == "invalid_credentials")
        }
        // Locked now, even with the right password.
        await #expect {
            try await f.login("ann@example.com")
        } throws: { error in
            guard case CatalogError.tooManyAttempts(let s)? = error as? CatalogError else { return false }
            return s >= 500
        }
        #expect(await f.store.loginWait(email: "ann@example.com", address: nil) ?? 0 >= 500)
        #expect(await f.store.loginWait(email: "bob@example.com", address: nil) == nil)
        #expect(await CatalogFixture.code { _ = try await f.login("nobody@example.com", "whatever it is") } == "invalid_credentials")
    }

    @Test(arguments: Backend.allCases)
    func expiredSessionsAreRefused(_ backend: Backend) async throws {
        let f = try await CatalogFixture(backend, sessionLifetime: -1)
        _ = try await f.account()
        let s = try await f.login("ann@example.com")
        #expect(await CatalogFixture.code { _ = try await f.store.authenticate(token: s.token) } == "unauthorized")
        #expect(try await !f.store.sessionIsLive(tag: AccountRules.sessionTag(token: s.token), accountID: s.account.id))
    }

    @Test(arguments: Backend.allCases)
    func devicesBelongToTheirAccount(_ backend: Backend) async throws {
        let f = try await CatalogFixture(backend)
        try await f.publishSample()
        let ann = try await f.account(), bob = try await f.account("bob@example.com")
        let phone = try await f.store.addDevice(account: ann, name: "  phone ")
        #expect(phone.name == "phone")
        #expect(try await f.store.addDevice(account: ann, name: " ").name == "device")
        #expect(
            await CatalogFixture.code {
                try await f.store.setInstalled(productID: "base", version: 1, deviceID: phone.id, account: bob)
            } == "unknown_device")
        #expect(
            await CatalogFixture.code {
                _ = try await f.store.listing(account: bob, deviceID: phone.id, available: nil, only: nil)
            } == "unknown_device")
        try await f.store.setInstalled(productID: "base", version: 1, deviceID: phone.id, account: ann)
        // The account's installs across its devices: each product once; none of another account's.
        let tablet = try await f.store.addDevice(account: ann, name: "tablet")
        try await f.store.setInstalled(productID: "base", version: 1, deviceID: tablet.id, account: ann)
        #expect(try await f.store.installedProducts(account: ann) == ["base"])
        #expect(try await f.store.installedProducts(account: bob).isEmpty)
        try await f.store.setUninstalled(productID: "base", deviceID: phone.id, account: ann)
        #expect(try await f.store.installedProducts(account: ann) == ["base"])
        try await f.store.setUninstalled(productID: "base", deviceID: tablet.id, account: ann)
        #expect(try await f.store.installedProducts(account: ann).isEmpty)
    }

    @Test(arguments: Backend.allCases)
    func tileTokensAreBoundToAccountProductAndTime(_ backend: Backend) async throws {
        let f = try await CatalogFixture(backend)
        let tokens = TileTokens(catalog: f.store, lifetime: 60)
        let now = Date()
        let t = try await tokens.issue(accountID: "a1", productID: "colorado", session: "0123456789abcdef", now: now)
        #expect(try await tokens.holder(of: t.token, productID: "colorado", now: now)?.accountID == "a1")
        #expect(try await tokens.holder(of: t.token, productID: "colorado", now: now)?.session == "0123456789abcdef")
        #expect(try await tokens.holder(of: t.token, productID: "utah", now: now) == nil)
        #expect(try await tokens.holder(of: t.token, productID: "colorado", now: now.addingTimeInterval(61)) == nil)
        let elsewhere = try await CatalogFixture(backend)
        let other = TileTokens(catalog: elsewhere.store)
        // The other catalog's first key may have the same id: the secret differs.
        #expect(try await other.holder(of: t.token, productID: "colorado", now: now) == nil, "another catalog's keys")
        var forged = Array(t.token)
        forged[4] = forged[4] == "A" ? "B" : "A"
        #expect(try await tokens.holder(of: String(forged), productID: "colorado", now: now) == nil)
    }
}
