// Purchases, store notifications and the sandbox store: `POST /purchases`,
// `POST /store/notifications`, `POST /sandbox/transactions`, `POST /sandbox/notifications`.

/// A signed App Store transaction (a compact JWS): the `POST /purchases` body (`Purchase`) and
/// the sandbox store's `POST /sandbox/transactions` answer.
public struct SignedTransaction: Codable, Sendable, Equatable {
    /// The JWS exactly as StoreKit returned it.
    public var signedTransaction: String

    public init(signedTransaction: String) { self.signedTransaction = signedTransaction }

    /// `Purchase` in the OpenAPI document.
    public static var schema: JSONValue {
        Schema.object(["signedTransaction": Schema.string(pattern: APIPattern.jws, maxLength: APIPattern.jwsMaxLength)])
    }
}

/// `POST /purchases` answer: 201 for a new entitlement, 200 when the account already owned the product.
public struct PurchaseResult: Codable, Sendable, Equatable {
    public var productId: String
    public var transactionId: String
    public var originalTransactionId: String
    /// Nothing new was granted; downloading again is free.
    public var alreadyOwned: Bool
    /// `/api/v1/downloads/{productId}`.
    public var downloadURL: String
    /// Present when `alreadyOwned`: words for the buyer.
    public var message: String?

    public init(
        productId: String, transactionId: String, originalTransactionId: String, alreadyOwned: Bool, downloadURL: String,
        message: String? = nil
    ) {
        self.productId = productId
        self.transactionId = transactionId
        self.originalTransactionId = originalTransactionId
        self.alreadyOwned = alreadyOwned
        self.downloadURL = downloadURL
        self.message = message
    }

    public static var schema: JSONValue {
        Schema.object(
            [
                "productId": Schema.string(), "transactionId": Schema.string(), "originalTransactionId": Schema.string(),
                "alreadyOwned": Schema.boolean, "downloadURL": Schema.string(), "message": Schema.string()
            ],
            optional: ["message"])
    }
}

/// A signed App Store Server Notification V2 (a compact JWS): the `POST /store/notifications`
/// body (`Notification`) and the sandbox store's `POST /sandbox/notifications` answer.
public struct SignedPayload: Codable, Sendable, Equatable {
    public var signedPayload: String

    public init(signedPayload: String) { self.signedPayload = signedPayload }

    /// `Notification` in the OpenAPI document.
    public static var schema: JSONValue {
        Schema.object(["signedPayload": Schema.string(pattern: APIPattern.jws, maxLength: APIPattern.jwsMaxLength)])
    }
}

/// What a store notification did.
public enum NotificationOutcome: String, Codable, Sendable, CaseIterable {
    case revoked, restored
    /// The same notificationUUID was handled before: nothing changed.
    case duplicate
    /// For a transaction not recorded yet: applied when the purchase is recorded.
    case pending
    /// Older than a notification already applied to the same transaction: recorded, no effect.
    case superseded
    /// Not a type the store acts on, or nothing to change.
    case ignored
}

/// `POST /store/notifications` answer (200).
public struct NotificationResult: Codable, Sendable, Equatable {
    public var notificationUUID: String
    public var result: NotificationOutcome

    public init(notificationUUID: String, result: NotificationOutcome) {
        self.notificationUUID = notificationUUID
        self.result = result
    }

    public static var schema: JSONValue {
        Schema.object(["notificationUUID": Schema.string(), "result": Schema.string(enum: NotificationOutcome.allCases.map(\.rawValue))])
    }
}

/// `POST /sandbox/transactions` body: what to sign a purchase of.
public struct SandboxPurchaseRequest: Codable, Sendable, Equatable {
    public var productId: String
    /// A UUID; the caller's account token when left out.
    public var appAccountToken: String?

    public init(productId: String, appAccountToken: String? = nil) {
        self.productId = productId
        self.appAccountToken = appAccountToken
    }

    /// `SandboxPurchase` in the OpenAPI document.
    public static var schema: JSONValue {
        Schema.object(
            ["productId": Schema.string(pattern: APIPattern.productID), "appAccountToken": Schema.string(format: "uuid")],
            optional: ["appAccountToken"])
    }
}

/// `POST /sandbox/notifications` body: which of the caller's transactions to sign a notification about.
public struct SandboxNotificationRequest: Codable, Sendable, Equatable {
    /// The notification types the sandbox signs.
    public static let types = ["REFUND", "REVOKE", "REFUND_REVERSED"]

    /// `REFUND`, `REVOKE` or `REFUND_REVERSED`.
    public var notificationType: String
    public var transactionId: String

    public init(notificationType: String, transactionId: String) {
        self.notificationType = notificationType
        self.transactionId = transactionId
    }

    /// `SandboxNotification` in the OpenAPI document.
    public static var schema: JSONValue {
        Schema.object(["notificationType": Schema.string(enum: types), "transactionId": Schema.string(minLength: 1, maxLength: 128)])
    }
}
