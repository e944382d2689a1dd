// What an account owns: `GET /entitlements`.

/// Whether an entitlement grants its product.
public enum EntitlementStatus: String, Codable, Sendable, CaseIterable {
    case active
    /// Refunded or revoked by the store.
    case revoked
}

/// A product the account owns (or owned: revoked).
public struct Entitlement: Codable, Sendable, Equatable {
    public var productId: String
    /// The store's original transaction, which holds the entitlement.
    public var originalTransactionId: String
    /// When it was granted: ISO 8601 in UTC, whole seconds.
    public var purchasedAt: String
    public var status: EntitlementStatus
    /// Why it was revoked, when it was.
    public var revokedReason: String?
    /// `/api/v1/downloads/{productId}`.
    public var downloadURL: String
    /// The product's current version, size, SHA-256, title and tileset; absent when the product
    /// is no longer published.
    public var version: Int?
    public var size: Int64?
    public var sha256: String?
    public var title: String?
    public var tileset: String?

    public init(
        productId: String, originalTransactionId: String, purchasedAt: String, status: EntitlementStatus,
        revokedReason: String? = nil, downloadURL: String, version: Int? = nil, size: Int64? = nil, sha256: String? = nil,
        title: String? = nil, tileset: String? = nil
    ) {
        self.productId = productId
        self.originalTransactionId = originalTransactionId
        self.purchasedAt = purchasedAt
        self.status = status
        self.revokedReason = revokedReason
        self.downloadURL = downloadURL
        self.version = version
        self.size = size
        self.sha256 = sha256
        self.title = title
        self.tileset = tileset
    }

    /// The entitlement grants its product.
    public var isActive: Bool { status == .active }

    public static var schema: JSONValue {
        Schema.object(
            [
                "productId": Schema.string(), "originalTransactionId": Schema.string(), "purchasedAt": Schema.string(format: "date-time"),
                "status": Schema.string(enum: EntitlementStatus.allCases.map(\.rawValue)), "revokedReason": Schema.string(),
                "downloadURL": Schema.string(), "version": Schema.integer(), "size": Schema.integer(), "sha256": Schema.string(),
                "title": Schema.string(), "tileset": Schema.string()
            ], optional: ["revokedReason", "version", "size", "sha256", "title", "tileset"])
    }
}

/// `GET /entitlements` answer.
public struct EntitlementList: Codable, Sendable, Equatable {
    public var entitlements: [Entitlement]

    public init(entitlements: [Entitlement]) { self.entitlements = entitlements }

    public static var schema: JSONValue { Schema.object(["entitlements": Schema.array(Schema.ref("Entitlement"))]) }
}
