import Foundation

extension SandboxStore {
    /// Signs a new purchase, as StoreKit hands it to the app after a purchase.
    ///
    /// `transactionId` is a fresh 16-digit numeric string; `originalTransactionId` defaults to it.
    public func signTransaction(
        productId: String, appAccountToken: UUID?, originalTransactionId: String? = nil,
        price: Int64? = nil, currency: String? = nil, type: String = JWSTransaction.nonConsumable,
        now: Date = Date()
    ) throws(SandboxStoreError) -> (jws: String, transaction: JWSTransaction) {
        let millis = Self.milliseconds(now)
        let id = Self.newTransactionId()
        let transaction = JWSTransaction(
            transactionId: id, originalTransactionId: originalTransactionId ?? id,
            bundleId: bundleId, productId: productId,
            purchaseDate: millis, originalPurchaseDate: millis, quantity: 1, type: type,
            appAccountToken: appAccountToken?.uuidString.lowercased(), inAppOwnershipType: "PURCHASED",
            signedDate: millis, environment: environment.rawValue, storefront: "USA", storefrontId: "143441",
            transactionReason: "PURCHASE", currency: price == nil ? nil : (currency ?? "USD"), price: price)
        return (try sign(transaction), transaction)
    }

    /// Re-signs `transaction` now (a fresh `signedDate`), unchanged otherwise.
    public func sign(transaction: JWSTransaction, now: Date = Date()) throws(SandboxStoreError) -> String {
        var copy = transaction
        copy.signedDate = Self.milliseconds(now)
        return try sign(copy)
    }

    /// Signs an App Store Server Notification V2 about `transaction` and returns its `signedPayload`.
    ///
    /// For `REFUND` and `REVOKE` the inner transaction carries `revocationDate` (now) and
    /// `revocationReason` (0); for other types those fields are removed. Each call has a fresh
    /// `notificationUUID`.
    public func signNotification(
        type: String, subtype: String? = nil, transaction: JWSTransaction,
        now: Date = Date()
    ) throws(SandboxStoreError) -> String {
        var inner = transaction
        if type == "REFUND" || type == "REVOKE" {
            inner.revocationDate = Self.milliseconds(now)
            inner.revocationReason = inner.revocationReason ?? 0
        } else {
            inner.revocationDate = nil
            inner.revocationReason = nil
        }
        let signedTransaction = try sign(transaction: inner, now: now)
        let notification = StoreNotification(
            notificationType: type, subtype: subtype, notificationUUID: UUID().uuidString.lowercased(),
            data: StoreNotificationData(
                bundleId: bundleId, bundleVersion: "1", environment: environment.rawValue,
                signedTransactionInfo: signedTransaction),
            version: "2.0", signedDate: Self.milliseconds(now))
        return try sign(notification)
    }

    static func milliseconds(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
    }

    /// "2" followed by 15 random digits, like Apple's transaction ids.
    static func newTransactionId() -> String {
        let digits = String(UInt64.random(in: 0..<1_000_000_000_000_000))
        return "2" + String(repeating: "0", count: 15 - digits.count) + digits
    }
}
