import Catalog
import Foundation
import GRDB
import Testing
import TrailMapTestSupport

@Suite struct AccountTests {
    @Test func registerLoginAuthenticateLogout() throws {
        let f = try CatalogFixture()
        let a = try f.account()
        let s = try f.db.login(email: "ANN@example.com", password: "correct horse battery")
        #expect(s.account == a)
        #expect(try f.db.authenticate(token: s.token) == a)
        try f.db.logout(token: s.token)
        #expect(throws: CatalogError.unauthorized) { try f.db.authenticate(token: s.token) }
    }

    @Test func tokensAndPasswordsAreStoredOnlyAsHashes() throws {
        let f = try CatalogFixture()
        _ = try f.account()
        let s = try f.db.login(email: "ann@example.com", password: "correct horse battery")
        let raw = try DatabaseQueue(path: f.dir.file("catalog.sqlite"))
        let (hashes, stored) = try raw.read { db in
            (try String.fetchAll(db, sql: "SELECT token_hash FROM sessions"), try String.fetchAll(db, sql: "SELECT password_hash FROM accounts"))
        }
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

    @Test func badRegistrationsAreRefused() throws {
        let f = try CatalogFixture()
        _ = try f.account()
        #expect(throws: CatalogError.emailTaken) { try f.db.register(email: "Ann@Example.com", password: "another long one") }
        #expect(throws: CatalogError.weakPassword(minimum: 10)) { try f.db.register(email: "bob@example.com", password: "short") }
        for email in ["", "bob", "bob@", "@example.com", "bob@example", "b ob@example.com", "'; DROP TABLE accounts; --@x.io"] {
            #expect(throws: CatalogError.invalidEmail) { try f.db.register(email: email, password: "long enough password") }
        }
    }

    @Test func wrongPasswordsAreThrottled() throws {
        let f = try CatalogFixture()
        _ = try f.account()
        for _ in 0..<5 {
            #expect(throws: CatalogError.invalidCredentials) { try f.db.login(email: "ann@example.com", password: "wrong password") }
        }
        // Locked now, even with the right password.
        #expect { try f.db.login(email: "ann@example.com", password: "correct horse battery") } throws: { error in
            guard case CatalogError.tooManyAttempts(let s)? = error as? CatalogError else { return false }
            return s >= 1
        }
        #expect(throws: CatalogError.invalidCredentials) { try f.db.login(email: "nobody@example.com", password: "whatever it is") }
    }

    @Test func expiredSessionsAreRefused() throws {
        let f = try CatalogFixture(sessionLifetime: -1)
        _ = try f.account()
        let s = try f.db.login(email: "ann@example.com", password: "correct horse battery")
        #expect(throws: CatalogError.unauthorized) { try f.db.authenticate(token: s.token) }
    }

    @Test func devicesBelongToTheirAccount() throws {
        let f = try CatalogFixture()
        try f.publishSample()
        let ann = try f.account(), bob = try f.account("bob@example.com")
        let phone = try f.db.addDevice(account: ann, name: "phone")
        #expect(throws: CatalogError.unknownDevice(phone.id)) {
            try f.db.setInstalled(productID: "base", version: 1, deviceID: phone.id, account: bob)
        }
    }

    @Test func tileTokensAreBoundToAccountProductAndTime() async throws {
        let f = try CatalogFixture()
        let tokens = TileTokens(catalog: f.db, lifetime: 60)
        let now = Date()
        let t = try await tokens.issue(accountID: "a1", productID: "colorado", session: "0123456789abcdef", now: now)
        #expect(try await tokens.holder(of: t.token, productID: "colorado", now: now)?.accountID == "a1")
        #expect(try await tokens.holder(of: t.token, productID: "colorado", now: now)?.session == "0123456789abcdef")
        #expect(try await tokens.holder(of: t.token, productID: "utah", now: now) == nil)
        #expect(try await tokens.holder(of: t.token, productID: "colorado", now: now.addingTimeInterval(61)) == nil)
        let elsewhere = try CatalogFixture()
        let other = TileTokens(catalog: elsewhere.db)
        #expect(try await other.holder(of: t.token, productID: "colorado", now: now) == nil, "another catalog's keys")
        var forged = Array(t.token)
        forged[4] = forged[4] == "A" ? "B" : "A"
        #expect(try await tokens.holder(of: String(forged), productID: "colorado", now: now) == nil)
    }
}
