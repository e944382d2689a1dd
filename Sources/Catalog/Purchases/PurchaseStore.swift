import Foundation

/// Purchases, entitlements, installs, store notifications and the audit log, as every catalog
/// backend keeps them (`CatalogStore`).
public protocol PurchaseStore: Sendable {
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
}
