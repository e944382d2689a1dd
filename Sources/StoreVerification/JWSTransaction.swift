import Foundation

/// A decoded App Store signed transaction: Apple's `JWSTransactionDecodedPayload`, with Apple's
/// field names and JSON types (dates are milliseconds since 1970 as integers, `price` in milliunits).
///
/// String-valued enumerations (`type`, `environment`, …) keep Apple's raw strings so that values
/// Apple adds later still decode.
public struct JWSTransaction: Codable, Sendable, Hashable {
    /// The unique identifier of this transaction (a numeric string).
    public var transactionId: String
    /// The transaction identifier of the original purchase; restores and re-downloads share it.
    public var originalTransactionId: String
    /// The identifier of subscription purchase events across devices; subscriptions only.
    public var webOrderLineItemId: String?
    /// The app's bundle identifier.
    public var bundleId: String
    /// The in-app purchase product identifier.
    public var productId: String
    /// The subscription group; subscriptions only.
    public var subscriptionGroupIdentifier: String?
    /// When the App Store charged the account (ms since 1970).
    public var purchaseDate: Int64
    /// When the original purchase happened (ms since 1970).
    public var originalPurchaseDate: Int64
    /// When a subscription expires (ms since 1970); subscriptions only.
    public var expiresDate: Int64?
    /// The number of items purchased.
    public var quantity: Int32
    /// `Non-Consumable`, `Consumable`, `Auto-Renewable Subscription` or `Non-Renewing Subscription`.
    public var type: String
    /// The UUID the app passed to StoreKit to name the account, lowercase or uppercase.
    public var appAccountToken: String?
    /// `PURCHASED` or `FAMILY_SHARED`.
    public var inAppOwnershipType: String
    /// When the App Store signed this payload (ms since 1970).
    public var signedDate: Int64
    /// Why the transaction was refunded or revoked (0: other reason, 1: app issue).
    public var revocationReason: Int32?
    /// When the transaction was refunded or revoked (ms since 1970).
    public var revocationDate: Int64?
    /// Whether a subscription was upgraded.
    public var isUpgraded: Bool?
    /// The kind of offer redeemed (1 introductory, 2 promotional, 3 offer code, 4 win-back).
    public var offerType: Int32?
    /// The identifier of the redeemed offer.
    public var offerIdentifier: String?
    /// `Production`, `Sandbox`, `Xcode` or `LocalTesting`.
    public var environment: String
    /// The three-letter storefront code (ISO 3166-1 alpha-3).
    public var storefront: String
    /// Apple's numeric storefront identifier.
    public var storefrontId: String
    /// `PURCHASE` or `RENEWAL`.
    public var transactionReason: String
    /// ISO 4217 currency of `price`.
    public var currency: String?
    /// The price in milliunits of `currency` (4.99 USD is 4990).
    public var price: Int64?
    /// `FREE_TRIAL`, `PAY_AS_YOU_GO`, `PAY_UP_FRONT` or `ONE_TIME`.
    public var offerDiscountType: String?
    /// The identifier of the app download transaction.
    public var appTransactionId: String?
    /// The duration of the redeemed offer (ISO 8601 duration).
    public var offerPeriod: String?

    /// Creates a transaction; the sandbox store and tests build them, verification decodes them.
    public init(
        transactionId: String, originalTransactionId: String, webOrderLineItemId: String? = nil,
        bundleId: String, productId: String, subscriptionGroupIdentifier: String? = nil,
        purchaseDate: Int64, originalPurchaseDate: Int64, expiresDate: Int64? = nil, quantity: Int32 = 1,
        type: String, appAccountToken: String? = nil, inAppOwnershipType: String = "PURCHASED",
        signedDate: Int64, revocationReason: Int32? = nil, revocationDate: Int64? = nil,
        isUpgraded: Bool? = nil, offerType: Int32? = nil, offerIdentifier: String? = nil,
        environment: String, storefront: String = "USA", storefrontId: String = "143441",
        transactionReason: String = "PURCHASE", currency: String? = nil, price: Int64? = nil,
        offerDiscountType: String? = nil, appTransactionId: String? = nil, offerPeriod: String? = nil
    ) {
        self.transactionId = transactionId
        self.originalTransactionId = originalTransactionId
        self.webOrderLineItemId = webOrderLineItemId
        self.bundleId = bundleId
        self.productId = productId
        self.subscriptionGroupIdentifier = subscriptionGroupIdentifier
        self.purchaseDate = purchaseDate
        self.originalPurchaseDate = originalPurchaseDate
        self.expiresDate = expiresDate
        self.quantity = quantity
        self.type = type
        self.appAccountToken = appAccountToken
        self.inAppOwnershipType = inAppOwnershipType
        self.signedDate = signedDate
        self.revocationReason = revocationReason
        self.revocationDate = revocationDate
        self.isUpgraded = isUpgraded
        self.offerType = offerType
        self.offerIdentifier = offerIdentifier
        self.environment = environment
        self.storefront = storefront
        self.storefrontId = storefrontId
        self.transactionReason = transactionReason
        self.currency = currency
        self.price = price
        self.offerDiscountType = offerDiscountType
        self.appTransactionId = appTransactionId
        self.offerPeriod = offerPeriod
    }
}

extension JWSTransaction {
    /// Apple's `type` value for a non-consumable in-app purchase (TrailMap's region purchases).
    public static let nonConsumable = "Non-Consumable"
    /// Apple's `type` value for a consumable in-app purchase (TrailMap's area purchases).
    public static let consumable = "Consumable"

    /// `appAccountToken` parsed as a UUID, or nil when absent or not a UUID.
    public var appAccountUUID: UUID? { appAccountToken.flatMap(UUID.init(uuidString:)) }

    /// `purchaseDate` as a `Date`.
    public var purchasedAt: Date { Date(timeIntervalSince1970: Double(purchaseDate) / 1000) }

    /// `signedDate` as a `Date`.
    public var signedAt: Date { Date(timeIntervalSince1970: Double(signedDate) / 1000) }

    /// `revocationDate` as a `Date`, when the transaction was refunded or revoked.
    public var revokedAt: Date? { revocationDate.map { Date(timeIntervalSince1970: Double($0) / 1000) } }

    /// `environment` as a `StoreEnvironment`, or nil for a value this code does not know.
    public var storeEnvironment: StoreEnvironment? { StoreEnvironment(rawValue: environment) }
}
