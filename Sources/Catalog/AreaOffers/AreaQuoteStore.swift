import Foundation

/// Areas on demand: quotes waiting for a purchase, and their purchase, as every catalog backend
/// keeps them (`CatalogStore`).
public protocol AreaQuoteStore: Sendable {
    func saveAreaQuote(_ q: AreaQuoteRecord, keepPerAccount: Int) async throws(CatalogError) -> [String]
    func areaQuote(id: String, account: Account) async throws(CatalogError) -> AreaQuoteRecord?
    func buyArea(quoteID: String, purchase: StorePurchase, account: Account, now: Date) async throws(CatalogError) -> AreaOutcome
    func removeExpiredAreaQuotes(before: Date) async throws(CatalogError) -> [String]
    /// The bytes of the cut bundles not bought yet (on disk until bought or swept): every
    /// account's (`accountID` nil) or one account's.
    func unboughtAreaQuoteBytes(accountID: String?) async throws(CatalogError) -> Int64
}

extension AreaQuoteStore {
    /// The bytes of every account's cut bundles not bought yet.
    public func unboughtAreaQuoteBytes() async throws(CatalogError) -> Int64 {
        try await unboughtAreaQuoteBytes(accountID: nil)
    }
}
