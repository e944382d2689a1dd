import Foundation
import StoreVerification

/// Verifies signed store data (App Store JWS) and extracts what the catalog records.
/// The same implementation serves production and the sandbox store: only the trusted roots differ.
public protocol StoreVerifying: Sendable {
    /// A verified `JWSTransaction` for a known non-consumable of this app, or a thrown error.
    func verifyPurchase(_ signedTransaction: String) async throws -> StorePurchase
    /// A verified `JWSTransaction` of a consumable purchase (an area), or a thrown error.
    func verifyConsumable(_ signedTransaction: String) async throws -> StorePurchase
    /// A verified App Store Server Notification V2 (`signedPayload`), or a thrown error.
    func verifyEvent(_ signedPayload: String) async throws -> StoreEvent
}

/// Signs what the App Store would sign, for development and tests (the sandbox store).
public protocol SandboxSigning: Sendable {
    /// A signed transaction for a purchase of `productId`, as StoreKit hands it to the app.
    func signPurchase(productId: String, appAccountToken: String?, price: Price?) throws -> String
    /// The same for a consumable purchase (`type` Consumable), as for an area product.
    func signConsumablePurchase(productId: String, appAccountToken: String?, price: Price?) throws -> String
    /// A signed notification of `type` about a recorded purchase, as Apple would post it.
    func signNotification(type: String, purchase: StorePurchase) throws -> String
}
