/// A product the account owns (`GET /entitlements`).
public struct Entitlement: Codable, Sendable, Equatable {
    public var productId: String
    public var originalTransactionId: String?
    public var purchasedAt: String?
    /// `active` or `revoked`.
    public var status: String
    public var revokedReason: String?
    public var version: Int?
    public var size: Int64?
    public var sha256: String?
    public var downloadURL: String?

    public var isActive: Bool { status == "active" }
}
