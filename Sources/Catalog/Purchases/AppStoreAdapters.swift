import Foundation
import StoreVerification

/// The App Store verifier as the catalog uses it: the same checks for production and sandbox.
extension SignedDataVerifier: StoreVerifying {
    public func verifyPurchase(_ signedTransaction: String) async throws -> StorePurchase {
        Self.purchase(try await verifyTransaction(signedTransaction))
    }

    public func verifyConsumable(_ signedTransaction: String) async throws -> StorePurchase {
        Self.purchase(try await verifyConsumableTransaction(signedTransaction))
    }

    private static func purchase(_ t: JWSTransaction) -> StorePurchase {
        StorePurchase(
            transactionId: t.transactionId, originalTransactionId: t.originalTransactionId,
            productId: t.productId, appAccountToken: t.appAccountToken,
            purchaseDate: Date(timeIntervalSince1970: Double(t.purchaseDate) / 1000), environment: t.environment,
            revocationDate: t.revocationDate.map { Date(timeIntervalSince1970: Double($0) / 1000) })
    }

    public func verifyEvent(_ signedPayload: String) async throws -> StoreEvent {
        let v = try await verifyNotification(signedPayload)
        return StoreEvent(
            notificationUUID: v.notification.notificationUUID, type: v.notification.notificationType,
            subtype: v.notification.subtype, originalTransactionId: v.transaction?.originalTransactionId,
            transactionId: v.transaction?.transactionId,
            signedDate: Date(timeIntervalSince1970: Double(v.notification.signedDate) / 1000),
            revocationDate: v.transaction?.revocationDate.map { Date(timeIntervalSince1970: Double($0) / 1000) })
    }
}

/// The sandbox store signs what StoreKit and the App Store would.
extension SandboxStore: SandboxSigning {
    public func signPurchase(productId: String, appAccountToken: String?, price: Price?) throws -> String {
        try sign(productId: productId, appAccountToken: appAccountToken, price: price, type: JWSTransaction.nonConsumable)
    }

    public func signConsumablePurchase(productId: String, appAccountToken: String?, price: Price?) throws -> String {
        try sign(productId: productId, appAccountToken: appAccountToken, price: price, type: JWSTransaction.consumable)
    }

    private func sign(productId: String, appAccountToken: String?, price: Price?, type: String) throws -> String {
        let milli = price.flatMap { Decimal(string: $0.amount) }.map { NSDecimalNumber(decimal: $0 * 1000).int64Value }
        return try signTransaction(
            productId: productId, appAccountToken: appAccountToken.flatMap(UUID.init(uuidString:)),
            price: milli, currency: price?.currency, type: type
        ).jws
    }

    public func signNotification(type: String, purchase p: StorePurchase) throws -> String {
        let ms = Int64((p.purchaseDate.timeIntervalSince1970 * 1000).rounded(.down))
        let t = JWSTransaction(
            transactionId: p.transactionId, originalTransactionId: p.originalTransactionId,
            bundleId: bundleId, productId: p.productId, purchaseDate: ms, originalPurchaseDate: ms,
            type: JWSTransaction.nonConsumable, appAccountToken: p.appAccountToken,
            inAppOwnershipType: "PURCHASED", signedDate: ms, environment: environment.rawValue,
            storefront: "USA", storefrontId: "143441", transactionReason: "PURCHASE")
        return try signNotification(type: type, transaction: t)
    }
}
