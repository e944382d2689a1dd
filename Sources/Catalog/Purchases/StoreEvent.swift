import Foundation

/// The facts of a verified App Store Server Notification V2 that the catalog acts on.
public struct StoreEvent: Sendable, Equatable {
    public var notificationUUID: String
    public var type: String
    public var subtype: String?
    /// From the notification's signed transaction, when it has one.
    public var originalTransactionId: String?
    public var transactionId: String?
    /// When the store signed the notification: REFUND, REVOKE and REFUND_REVERSED of one
    /// transaction take effect in this order, whatever order they arrive in (nil: the epoch).
    public var signedDate: Date?
    /// The transaction's `revocationDate` (REFUND, REVOKE), recorded in the entitlement's reason.
    public var revocationDate: Date?

    public init(
        notificationUUID: String, type: String, subtype: String?, originalTransactionId: String?, transactionId: String?,
        signedDate: Date? = nil, revocationDate: Date? = nil
    ) {
        self.notificationUUID = notificationUUID
        self.type = type
        self.subtype = subtype
        self.originalTransactionId = originalTransactionId
        self.transactionId = transactionId
        self.signedDate = signedDate
        self.revocationDate = revocationDate
    }
}

/// What a notification did.
public enum StoreEventOutcome: String, Sendable {
    case revoked, restored
    /// The same notificationUUID was handled before: nothing changed.
    case duplicate
    /// A REFUND, REVOKE or REFUND_REVERSED for a transaction not recorded yet: kept, and applied
    /// when the purchase is recorded.
    case pending
    /// Older (by `signedDate`) than a REFUND, REVOKE or REFUND_REVERSED already applied to the
    /// same transaction: recorded, no effect.
    case superseded
    /// Not a type the catalog acts on, or the entitlement is already in the state it asks for.
    case ignored
}
