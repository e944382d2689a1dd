import Catalog
import Essentials
import Foundation
import GRDB

/// Registration, login, token checks, logout and devices.
extension CatalogDatabase {
    /// Creates an account; the password is stored only as a scrypt hash. Registrations from one
    /// client `address` are throttled (`LoginThrottle`); nil (a local caller) is not.
    public func register(email rawEmail: String, password: String, address: String? = nil) throws(CatalogError) -> Account {
        let email = rawEmail.trimmingCharacters(in: .whitespaces)
        guard AccountRules.isEmail(email) else { throw .invalidEmail }
        // Counted in Unicode scalars, as JSON Schema's minLength counts (the OpenAPI document).
        guard password.unicodeScalars.count >= AccountRules.minimumPasswordLength,
            password.unicodeScalars.count <= AccountRules.maximumPasswordLength
        else {
            throw .weakPassword(minimum: AccountRules.minimumPasswordLength)
        }
        if let wait = throttle.admitRegistration(address: address) { throw .tooManyAttempts(retryAfter: wait) }
        let stored: String
        do { stored = try hasher.hash(password) } catch { throw .database("password hashing failed: \(error)") }
        let account = Account(id: UUID().uuidString.lowercased(), email: email, appAccountToken: UUID().uuidString.lowercased())
        do {
            try pool.write { db in
                try db.execute(
                    sql: """
                        INSERT INTO accounts(id, email, password_hash, app_account_token, created_at) VALUES (?, ?, ?, ?, ?)
                        """, arguments: [account.id, email, stored, account.appAccountToken, Date().timeIntervalSince1970])
            }
        } catch let e as DatabaseError where e.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE {
            throw .emailTaken
        } catch { throw .database("\(error)") }
        return account
    }

    /// Checks the password and returns a new session token. Attempts are throttled per email and
    /// per client `address` (`LoginThrottle`: counted when admitted, so parallel guesses cannot
    /// slip past the count).
    public func login(email rawEmail: String, password: String, address: String? = nil) throws(CatalogError) -> Session {
        let email = rawEmail.trimmingCharacters(in: .whitespaces)
        if let wait = throttle.admitLogin(email: email, address: address) { throw .tooManyAttempts(retryAfter: wait) }
        let row = try read { db in
            try Row.fetchOne(
                db, sql: "SELECT id, email, password_hash, app_account_token FROM accounts WHERE email = ?",
                arguments: [email])
        }
        guard let row, hasher.verify(password, against: row["password_hash"]) else {
            if row == nil { hasher.burn(password) }
            throw .invalidCredentials
        }
        throttle.succeeded(email: email, address: address)
        let account = Account(id: row["id"], email: row["email"], appAccountToken: row["app_account_token"])
        let token = Base64URL.encode(Data.catalogRandom(count: 32))
        let now = Date()
        let expires = now.addingTimeInterval(sessionLifetime)
        try write { db in
            // Expired sessions of every account go (not only this one's), so none lingers.
            try db.execute(sql: "DELETE FROM sessions WHERE expires_at < ?", arguments: [now.timeIntervalSince1970])
            try db.execute(
                sql: "INSERT INTO sessions(token_hash, account_id, created_at, expires_at) VALUES (?, ?, ?, ?)",
                arguments: [AccountRules.tokenHash(token), account.id, now.timeIntervalSince1970, expires.timeIntervalSince1970])
        }
        return Session(token: token, expiresAt: expires, account: account)
    }

    /// Seconds the caller must wait before trying to log in as `email` from `address`, or nil:
    /// a look that counts nothing, for answering 429 before queueing a password hash.
    public func loginWait(email: String, address: String?) -> Int? {
        throttle.wait(for: email.trimmingCharacters(in: .whitespaces), address: address)
    }

    /// The account of a live bearer token.
    public func authenticate(token: String) throws(CatalogError) -> Account {
        guard !token.isEmpty, token.utf8.count <= 256 else { throw .unauthorized }
        let row = try read { db in
            try Row.fetchOne(
                try db.cachedStatement(
                    sql: """
                        SELECT a.id, a.email, a.app_account_token FROM sessions s JOIN accounts a ON a.id = s.account_id
                        WHERE s.token_hash = ? AND s.expires_at > ?
                        """), arguments: [AccountRules.tokenHash(token), Date().timeIntervalSince1970])
        }
        guard let row else { throw .unauthorized }
        return Account(id: row["id"], email: row["email"], appAccountToken: row["app_account_token"])
    }

    /// Whether a session with this tag is live for the account (tile tokens end with their session).
    public func sessionIsLive(tag: String, accountID: String) throws(CatalogError) -> Bool {
        guard tag.utf8.count == 16 else { return false }
        return try read { db in
            try Bool.fetchOne(
                try db.cachedStatement(
                    sql: """
                        SELECT 1 FROM sessions WHERE account_id = ? AND substr(token_hash, 1, 16) = ? AND expires_at > ?
                        """), arguments: [accountID, tag, Date().timeIntervalSince1970]) == true
        }
    }

    /// Ends a session: the token, and the tile tokens it asked for, stop working.
    public func logout(token: String) throws(CatalogError) {
        try write { db in try db.execute(sql: "DELETE FROM sessions WHERE token_hash = ?", arguments: [AccountRules.tokenHash(token)]) }
    }

    /// Registers a device on an account.
    public func addDevice(account: Account, name: String) throws(CatalogError) -> Device {
        let clean = String(name.trimmingCharacters(in: .whitespacesAndNewlines).prefix(100))
        let device = Device(id: UUID().uuidString.lowercased(), name: clean.isEmpty ? "device" : clean)
        try write { db in
            try db.execute(
                sql: "INSERT INTO devices(id, account_id, name, created_at) VALUES (?, ?, ?, ?)",
                arguments: [device.id, account.id, device.name, Date().timeIntervalSince1970])
        }
        return device
    }

    /// Whether a device belongs to the account.
    func checkDevice(_ db: Database, id: String, account: Account) throws {
        let owner = try String.fetchOne(try db.cachedStatement(sql: "SELECT account_id FROM devices WHERE id = ?"), arguments: [id])
        guard owner == account.id else { throw CatalogError.unknownDevice(id) }
    }
}
