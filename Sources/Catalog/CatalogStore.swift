import Foundation

/// Every catalog operation the server and the CLI use, behind one interface: `CatalogDatabase`
/// (SQLite, the embedded default) implements it today, and a PostgreSQL catalog for deployments
/// of several servers is to implement the same (issue "Scale-out"). Requirements are `async` so
/// that a networked backend never blocks a thread; SQLite's synchronous methods satisfy them.
///
/// Shared state lives behind it, not in a server process: accounts, sessions, devices, products,
/// entitlements, installs, notifications, the audit log and the tile-token keys.
public protocol CatalogStore: Sendable {
    // Accounts and sessions. `register` and `login` hash the password (scrypt, tens of ms of CPU)
    // and are synchronous: the server runs them on its password-hashing threads
    // (`KeyDerivationPool`), never on the shared concurrency pool, and a networked backend may
    // wait for its database there.
    func register(email: String, password: String, address: String?) throws(CatalogError) -> Account
    func login(email: String, password: String, address: String?) throws(CatalogError) -> Session
    /// Seconds before `email` may try to log in from `address` again, or nil (counts nothing).
    func loginWait(email: String, address: String?) async -> Int?
    func authenticate(token: String) async throws(CatalogError) -> Account
    func sessionIsLive(tag: String, accountID: String) async throws(CatalogError) -> Bool
    func logout(token: String) async throws(CatalogError)
    func addDevice(account: Account, name: String) async throws(CatalogError) -> Device

    // Products and listings.
    func products() async throws(CatalogError) -> [Product]
    func product(id: String) async throws(CatalogError) -> Product?
    func categoryTree() async throws(CatalogError) -> [CategoryNode]
    func listing(account: Account?, deviceID: String?, available: Set<String>?, only productID: String?) async throws(CatalogError) -> [ListedProduct]
    func publish(_ file: ProductFile, tilesDirectory: String) async throws(CatalogError) -> [PublishResult]
    /// Changes whenever the catalog's contents may have changed, written by any process.
    func changeStamp() async throws(CatalogError) -> Int

    // Purchases, entitlements, installs, store notifications.
    func recordPurchase(_ p: StorePurchase, account: Account) async throws(CatalogError) -> PurchaseOutcome
    func purchase(transactionID: String, account: Account) async throws(CatalogError) -> StorePurchase?
    func entitlements(account: Account) async throws(CatalogError) -> [Entitlement]
    func downloadable(productID: String, account: Account) async throws(CatalogError) -> Product
    func isEntitled(accountID: String, productID: String) async throws(CatalogError) -> Bool
    func setInstalled(productID: String, version: Int, deviceID: String, account: Account) async throws(CatalogError)
    func setUninstalled(productID: String, deviceID: String, account: Account) async throws(CatalogError)
    /// The products installed on any of the account's devices, sorted, each once.
    func installedProducts(account: Account) async throws(CatalogError) -> [String]
    func apply(_ e: StoreEvent) async throws(CatalogError) -> StoreEventOutcome
    func auditLog(limit: Int) async throws(CatalogError) -> [AuditEntry]

    // Areas on demand: quotes waiting for a purchase, and their purchase.
    func saveAreaQuote(_ q: AreaQuoteRecord, keepPerAccount: Int) async throws(CatalogError) -> [String]
    func areaQuote(id: String, account: Account) async throws(CatalogError) -> AreaQuoteRecord?
    func buyArea(quoteID: String, purchase: StorePurchase, account: Account, now: Date) async throws(CatalogError) -> AreaOutcome
    func removeExpiredAreaQuotes(before: Date) async throws(CatalogError) -> [String]
    /// The bytes of the cut bundles not bought yet (on disk until bought or swept): every
    /// account's (`accountID` nil) or one account's.
    func unboughtAreaQuoteBytes(accountID: String?) async throws(CatalogError) -> Int64

    // Tile-token keys (shared by every server on the catalog).
    func tileTokenKeys(now: Date, rotateAfter: TimeInterval, keep: TimeInterval) async throws(CatalogError) -> [TileTokenKey]
    func revokeTileTokenKeys(now: Date) async throws(CatalogError) -> TileTokenKey
}

extension CatalogDatabase: CatalogStore {}

extension CatalogStore {
    /// The bytes of every account's cut bundles not bought yet.
    public func unboughtAreaQuoteBytes() async throws(CatalogError) -> Int64 {
        try await unboughtAreaQuoteBytes(accountID: nil)
    }
}
