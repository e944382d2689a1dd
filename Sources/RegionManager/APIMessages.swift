// Small request and answer bodies of the store API (docs/api.md), kept together.

/// `POST /accounts` answer.
public struct AccountCreated: Codable, Sendable {
    public var accountId: String
    public var email: String
    public var appAccountToken: String?
}

/// `POST /sessions` answer.
public struct Session: Codable, Sendable {
    public var token: String
    public var expiresAt: String?
    public var accountId: String?
    public var appAccountToken: String?
}

/// `POST /devices` answer.
public struct DeviceRegistration: Codable, Sendable {
    public var deviceId: String
    public var name: String?
}

/// `POST /purchases` answer.
public struct PurchaseResult: Codable, Sendable {
    public var productId: String
    public var transactionId: String?
    public var originalTransactionId: String?
    public var alreadyOwned: Bool
    public var downloadURL: String?
    public var message: String?
}

struct Credentials: Encodable { var email: String; var password: String }
struct DeviceName: Encodable { var name: String }
struct InstallReport: Encodable { var version: Int }
struct SandboxPurchase: Encodable { var productId: String }
struct SignedTransaction: Codable { var signedTransaction: String }
struct SignedPayload: Codable { var signedPayload: String }
struct SandboxNotification: Encodable { var notificationType: String; var transactionId: String }
struct EntitlementList: Decodable { var entitlements: [Entitlement] }
struct APIErrorBody: Decodable {
    struct Inner: Decodable { var code: String; var message: String }
    var error: Inner
}
