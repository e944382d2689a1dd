import Foundation

/// Accounts, their sessions and devices, as every catalog backend keeps them (`CatalogStore`).
/// `register` and `login` hash the password (scrypt, tens of ms of CPU) and are synchronous: the
/// server runs them on its password-hashing threads (`KeyDerivationPool`), never on the shared
/// concurrency pool, and a networked backend may wait for its database there.
public protocol AccountStore: Sendable {
    func register(email: String, password: String, address: String?) throws(CatalogError) -> Account
    func login(email: String, password: String, address: String?) throws(CatalogError) -> Session
    /// Seconds before `email` may try to log in from `address` again, or nil (counts nothing).
    func loginWait(email: String, address: String?) async -> Int?
    func authenticate(token: String) async throws(CatalogError) -> Account
    func sessionIsLive(tag: String, accountID: String) async throws(CatalogError) -> Bool
    func logout(token: String) async throws(CatalogError)
    func addDevice(account: Account, name: String) async throws(CatalogError) -> Device
}
