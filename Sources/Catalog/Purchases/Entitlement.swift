import Foundation

/// The facts of a verified store transaction that the catalog records.
public struct StorePurchase: Sendable, Equatable {
    public var transactionId: String
    public var originalTransactionId: String
    public var productId: String
    /// The UUID the app passed to the store, if any: it must be the buyer's account token.
    public var appAccountToken: String?
    public var purchaseDate: Date
    public var environment: String
    /// When the store refunded or revoked this transaction, if it did: such a transaction grants nothing.
    public var revocationDate: Date?

    public init(
        transactionId: String, originalTransactionId: String, productId: String, appAccountToken: String?,
        purchaseDate: Date, environment: String, revocationDate: Date? = nil
    ) {
        self.revocationDate = revocationDate
        self.transactionId = transactionId
        self.originalTransactionId = originalTransactionId
        self.productId = productId
        self.appAccountToken = appAccountToken
        self.purchaseDate = purchaseDate
        self.environment = environment
    }
}

/// What recording a purchase did.
public struct PurchaseOutcome: Sendable, Equatable {
    public var productId: String
    public var transactionId: String
    public var originalTransactionId: String
    /// The account already owned the product: no new entitlement; downloading again is free.
    public var alreadyOwned: Bool

    /// Memberwise, for the catalog backends in other modules of the package.
    package init(productId: String, transactionId: String, originalTransactionId: String, alreadyOwned: Bool) {
        self.productId = productId
        self.transactionId = transactionId
        self.originalTransactionId = originalTransactionId
        self.alreadyOwned = alreadyOwned
    }
}

/// An account's right to a product, held by the store's original transaction.
public struct Entitlement: Sendable, Equatable {
    public enum Status: String, Sendable { case active, revoked }
    public var productId: String
    public var originalTransactionId: String
    public var status: Status
    /// Why it was revoked (refund, revoke), if it was.
    public var reason: String?
    public var grantedAt: Date

    /// Memberwise, for the catalog backends in other modules of the package.
    package init(productId: String, originalTransactionId: String, status: Status, reason: String?, grantedAt: Date) {
        self.productId = productId
        self.originalTransactionId = originalTransactionId
        self.status = status
        self.reason = reason
        self.grantedAt = grantedAt
    }
}

extension Entitlement.Status {
    /// A status as the database stores it; a value the schema does not allow is a damaged database.
    package init(stored raw: String) throws(CatalogError) {
        guard let status = Self(rawValue: raw) else { throw .database("an entitlement's status is '\(raw)', not active or revoked") }
        self = status
    }
}

/// Whether a device's install of a product stands (`installed`) or was revoked with the
/// entitlement it came from (`revoked`): the `installs.status` column of both backends.
package enum InstallStatus: String, Sendable {
    case installed, revoked

    /// A status as the database stores it; a value the schema does not allow is a damaged database.
    package init(stored raw: String) throws(CatalogError) {
        guard let status = Self(rawValue: raw) else { throw .database("an install's status is '\(raw)', not installed or revoked") }
        self = status
    }
}

/// A line of the append-only audit log.
public struct AuditEntry: Sendable, Equatable {
    public var at: Date
    public var accountId: String?
    public var productId: String?
    public var originalTransactionId: String?
    public var action: String
    public var reason: String

    /// Memberwise, for the catalog backends in other modules of the package.
    package init(at: Date, accountId: String?, productId: String?, originalTransactionId: String?, action: String, reason: String) {
        self.at = at
        self.accountId = accountId
        self.productId = productId
        self.originalTransactionId = originalTransactionId
        self.action = action
        self.reason = reason
    }
}
