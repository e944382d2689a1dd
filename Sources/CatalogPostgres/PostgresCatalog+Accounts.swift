import Essentials
import Catalog
import Foundation
import Logging
import PostgresNIO

/// Registration, login, token checks, logout and devices, as `CatalogDatabase` does them.
extension PostgresCatalog {
    /// Creates an account (see `CatalogDatabase.register`). Synchronous: call it on a
    /// password-hashing thread, not on the shared concurrency pool.
    public func register(email rawEmail: String, password: String, address: String? = nil) throws(CatalogError) -> Account {
        let email = rawEmail.trimmingCharacters(in: .whitespaces)
        guard AccountRules.isEmail(email) else { throw .invalidEmail }
        guard password.unicodeScalars.count >= AccountRules.minimumPasswordLength,
            password.unicodeScalars.count <= AccountRules.maximumPasswordLength
        else {
            throw .weakPassword(minimum: AccountRules.minimumPasswordLength)
        }
        if let key = ThrottleRules.registrationKey(address: address, limits: throttleLimits),
            let wait = try blocking({ () throws(CatalogError) in try await self.admit([key]) })
        {
            throw .tooManyAttempts(retryAfter: wait)
        }
        let stored: String
        do { stored = try hasher.hash(password) } catch { throw .database("password hashing failed: \(error)") }
        let account = Account(id: UUID().uuidString.lowercased(), email: email, appAccountToken: UUID().uuidString.lowercased())
        let logger = logger
        let inserted = try blocking { () throws(CatalogError) in
            try await self.transaction { conn in
                !(try await conn.rows(
                    """
                    INSERT INTO accounts(id, email, password_hash, app_account_token, created_at)
                    VALUES (\(account.id), \(email), \(stored), \(account.appAccountToken), \(Date().timeIntervalSince1970))
                    ON CONFLICT ((lower(email))) DO NOTHING RETURNING id
                    """, logger
                ).isEmpty)
            }
        }
        guard inserted else { throw .emailTaken }
        return account
    }

    /// Checks the password and returns a new session token (see `CatalogDatabase.login`); the
    /// attempt is counted in the shared `login_attempts` before the password is checked.
    /// Synchronous: call it on a password-hashing thread, not on the shared concurrency pool.
    public func login(email rawEmail: String, password: String, address: String? = nil) throws(CatalogError) -> Session {
        let email = rawEmail.trimmingCharacters(in: .whitespaces)
        let logger = logger
        if let wait = try blocking({ () throws(CatalogError) in
            try await self.admit(ThrottleRules.loginKeys(email: email, address: address, limits: self.throttleLimits))
        }) {
            throw .tooManyAttempts(retryAfter: wait)
        }
        let found = try blocking { () throws(CatalogError) -> (Account, String)? in
            try await self.withConnection { conn in
                try await conn.rows(
                    """
                    SELECT id, email, password_hash, app_account_token FROM accounts WHERE lower(email) = lower(\(email))
                    """, logger
                ).first.map { r in
                    (
                        Account(id: try r.get("id"), email: try r.get("email"), appAccountToken: try r.get("app_account_token")),
                        try r.get("password_hash", as: String.self)
                    )
                }
            }
        }
        guard let found, hasher.verify(password, against: found.1) else {
            if found == nil { hasher.burn(password) }
            throw .invalidCredentials
        }
        let account = found.0
        let token = Base64URL.encode(Data.catalogRandom(count: 32))
        let now = Date()
        let expires = now.addingTimeInterval(sessionLifetime)
        try blocking { () throws(CatalogError) in
            try await self.succeeded(email: email, address: address)
            try await self.transaction { conn in
                // Expired sessions of every account go (not only this one's), so none lingers.
                try await conn.run("DELETE FROM sessions WHERE expires_at < \(now.timeIntervalSince1970)", logger)
                try await conn.run(
                    """
                    INSERT INTO sessions(token_hash, account_id, created_at, expires_at)
                    VALUES (\(AccountRules.tokenHash(token)), \(account.id), \(now.timeIntervalSince1970), \(expires.timeIntervalSince1970))
                    """, logger)
            }
        }
        return Session(token: token, expiresAt: expires, account: account)
    }

    /// Seconds before `email` may try to log in from `address` again, or nil (counts nothing).
    /// An unreachable database answers nil: the login itself then reports the error.
    public func loginWait(email: String, address: String?) async -> Int? {
        try? await wait(
            ThrottleRules.loginKeys(email: email.trimmingCharacters(in: .whitespaces), address: address, limits: throttleLimits))
    }

    /// The account of a live bearer token.
    public func authenticate(token: String) async throws(CatalogError) -> Account {
        guard !token.isEmpty, token.utf8.count <= 256 else { throw .unauthorized }
        let logger = logger, hash = AccountRules.tokenHash(token), now = Date().timeIntervalSince1970
        let account = try await withConnection { conn in
            try await conn.rows(
                """
                SELECT a.id, a.email, a.app_account_token FROM sessions s JOIN accounts a ON a.id = s.account_id
                WHERE s.token_hash = \(hash) AND s.expires_at > \(now)
                """, logger
            ).first.map { r in
                Account(id: try r.get("id"), email: try r.get("email"), appAccountToken: try r.get("app_account_token"))
            }
        }
        guard let account else { throw .unauthorized }
        return account
    }

    /// Whether a session with this tag is live for the account (tile tokens end with their session).
    public func sessionIsLive(tag: String, accountID: String) async throws(CatalogError) -> Bool {
        guard tag.utf8.count == 16 else { return false }
        let logger = logger, now = Date().timeIntervalSince1970
        return try await withConnection { conn in
            !(try await conn.rows(
                """
                SELECT 1 FROM sessions WHERE account_id = \(accountID) AND substr(token_hash, 1, 16) = \(tag) AND expires_at > \(now)
                """, logger
            ).isEmpty)
        }
    }

    /// Ends a session: the token, and the tile tokens it asked for, stop working.
    public func logout(token: String) async throws(CatalogError) {
        let logger = logger, hash = AccountRules.tokenHash(token)
        try await transaction { conn in try await conn.run("DELETE FROM sessions WHERE token_hash = \(hash)", logger) }
    }

    /// Registers a device on an account.
    public func addDevice(account: Account, name: String) async throws(CatalogError) -> Device {
        let clean = String(name.trimmingCharacters(in: .whitespacesAndNewlines).prefix(100))
        let device = Device(id: UUID().uuidString.lowercased(), name: clean.isEmpty ? "device" : clean)
        let logger = logger
        try await transaction { conn in
            try await conn.run(
                """
                INSERT INTO devices(id, account_id, name, created_at)
                VALUES (\(device.id), \(account.id), \(device.name), \(Date().timeIntervalSince1970))
                """, logger)
        }
        return device
    }

    /// Throws `unknownDevice` unless the device belongs to the account.
    static func checkDevice(_ conn: PostgresConnection, id: String, account: Account, _ logger: Logger) async throws {
        let owner = try await conn.rows("SELECT account_id FROM devices WHERE id = \(id)", logger).first.map {
            try $0.get("account_id", as: String.self)
        }
        guard owner == account.id else { throw CatalogError.unknownDevice(id) }
    }
}
