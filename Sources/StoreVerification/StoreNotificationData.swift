/// The `data` object of an App Store Server Notification V2.
public struct StoreNotificationData: Codable, Sendable, Hashable {
    /// The app's Apple ID (absent in the sandbox).
    public var appAppleId: Int64?
    /// The app's bundle identifier.
    public var bundleId: String
    /// The app's build version.
    public var bundleVersion: String?
    /// `Production`, `Sandbox`, `Xcode` or `LocalTesting`.
    public var environment: String
    /// The transaction, as a JWS signed like a `JWSTransaction`.
    public var signedTransactionInfo: String?
    /// Subscription renewal information, as a JWS; subscriptions only.
    public var signedRenewalInfo: String?
    /// Subscription status (1 active … 5 revoked); subscriptions only.
    public var status: Int32?

    /// Creates the data object of a notification.
    public init(
        appAppleId: Int64? = nil, bundleId: String, bundleVersion: String? = nil, environment: String,
        signedTransactionInfo: String?, signedRenewalInfo: String? = nil, status: Int32? = nil
    ) {
        self.appAppleId = appAppleId
        self.bundleId = bundleId
        self.bundleVersion = bundleVersion
        self.environment = environment
        self.signedTransactionInfo = signedTransactionInfo
        self.signedRenewalInfo = signedRenewalInfo
        self.status = status
    }
}
