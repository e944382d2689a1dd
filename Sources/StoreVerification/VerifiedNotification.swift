/// A notification whose signature, chain, bundle id and environment were verified, with its inner
/// signed transaction verified the same way (its `type` is not checked: the catalog decides).
public struct VerifiedNotification: Sendable, Hashable {
    /// The decoded notification.
    public var notification: StoreNotification
    /// The verified transaction of `data.signedTransactionInfo`, when the notification carries one.
    public var transaction: JWSTransaction?

    /// Wraps a verified notification and its verified transaction.
    public init(notification: StoreNotification, transaction: JWSTransaction?) {
        self.notification = notification
        self.transaction = transaction
    }
}
