import Foundation

/// A decoded App Store Server Notification V2: Apple's `ResponseBodyV2DecodedPayload`.
///
/// TrailMap acts on `REFUND`, `REVOKE` and `REFUND_REVERSED`; other types are decoded and ignored.
public struct StoreNotification: Codable, Sendable, Hashable {
    /// For example `REFUND`, `REVOKE`, `REFUND_REVERSED`, `CONSUMPTION_REQUEST`, `TEST`.
    public var notificationType: String
    /// Further detail for some types (for example `VOLUNTARY` for `EXPIRED`).
    public var subtype: String?
    /// A unique identifier of this notification; Apple retries with the same UUID.
    public var notificationUUID: String
    /// The app and its signed transaction; absent only for summary notifications.
    public var data: StoreNotificationData?
    /// The notification format version, `2.0`.
    public var version: String
    /// When the App Store signed this payload (ms since 1970).
    public var signedDate: Int64

    /// Creates a notification payload (the sandbox store signs these).
    public init(
        notificationType: String, subtype: String? = nil, notificationUUID: String,
        data: StoreNotificationData?, version: String = "2.0", signedDate: Int64
    ) {
        self.notificationType = notificationType
        self.subtype = subtype
        self.notificationUUID = notificationUUID
        self.data = data
        self.version = version
        self.signedDate = signedDate
    }
}
