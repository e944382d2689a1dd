// Accounts, sessions, devices and installs: `POST /accounts`, `POST /sessions`, `POST /devices`,
// `PUT /devices/{deviceId}/installs/{productId}`.

/// `POST /accounts` and `POST /sessions` body.
public struct Credentials: Codable, Sendable, Equatable {
    public var email: String
    public var password: String

    public init(email: String, password: String) {
        self.email = email
        self.password = password
    }

    /// `Credentials` in the OpenAPI document (logging in: any stored email and password).
    public static var schema: JSONValue {
        Schema.object(["email": Schema.string(maxLength: 254), "password": Schema.string(maxLength: 256)])
    }

    /// `Registration` in the OpenAPI document: the same body, with the rules a new account's
    /// email and password must meet (the catalog's, passed in by the server).
    public static func registrationSchema(emailPattern: String, passwordLength: ClosedRange<Int>) -> JSONValue {
        Schema.object([
            "email": Schema.string(pattern: emailPattern, maxLength: 254),
            "password": Schema.string(minLength: passwordLength.lowerBound, maxLength: passwordLength.upperBound)
        ])
    }
}

/// `POST /accounts` answer (201).
public struct AccountCreated: Codable, Sendable, Equatable {
    public var accountId: String
    public var email: String
    /// The UUID the app passes to StoreKit so that the store's signed transactions name this account.
    public var appAccountToken: String

    public init(accountId: String, email: String, appAccountToken: String) {
        self.accountId = accountId
        self.email = email
        self.appAccountToken = appAccountToken
    }

    public static var schema: JSONValue {
        Schema.object(["accountId": Schema.string(), "email": Schema.string(), "appAccountToken": Schema.string(format: "uuid")])
    }
}

/// `POST /sessions` answer (200): a bearer token.
public struct Session: Codable, Sendable, Equatable {
    /// Sent as `Authorization: Bearer TOKEN`.
    public var token: String
    /// ISO 8601 in UTC, whole seconds, e.g. `2026-11-22T01:02:03Z`.
    public var expiresAt: String
    public var accountId: String
    public var appAccountToken: String

    public init(token: String, expiresAt: String, accountId: String, appAccountToken: String) {
        self.token = token
        self.expiresAt = expiresAt
        self.accountId = accountId
        self.appAccountToken = appAccountToken
    }

    public static var schema: JSONValue {
        Schema.object([
            "token": Schema.string(), "expiresAt": Schema.string(format: "date-time"), "accountId": Schema.string(),
            "appAccountToken": Schema.string(format: "uuid")
        ])
    }
}

/// `POST /devices` body. The name may be left out; when present it is a string (`null` is a 400).
public struct DeviceRequest: Codable, Sendable, Equatable {
    /// Trimmed and cut to 100 characters by the server; empty when left out.
    public var name: String?

    public init(name: String? = nil) { self.name = name }

    private enum CodingKeys: String, CodingKey { case name }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        // `decodeIfPresent` would take `null` for "left out"; the contract says it is not a string.
        name = c.contains(.name) ? try c.decode(String.self, forKey: .name) : nil
    }

    /// `Device` in the OpenAPI document.
    public static var schema: JSONValue {
        Schema.object(["name": Schema.string(description: "trimmed and cut to 100 characters")], optional: ["name"])
    }
}

/// `POST /devices` answer (201).
public struct DeviceRegistration: Codable, Sendable, Equatable {
    /// The id to use in `/devices/{deviceId}/...` and `?device=`.
    public var deviceId: String
    public var name: String

    public init(deviceId: String, name: String) {
        self.deviceId = deviceId
        self.name = name
    }

    public static var schema: JSONValue { Schema.object(["deviceId": Schema.string(), "name": Schema.string()]) }
}

/// `PUT /devices/{deviceId}/installs/{productId}` body: the version now installed there.
public struct InstallRequest: Codable, Sendable, Equatable {
    public var version: Int

    public init(version: Int) { self.version = version }

    /// `Install` in the OpenAPI document.
    public static var schema: JSONValue { Schema.object(["version": Schema.integer(minimum: 1, maximum: Int64(Int32.max))]) }
}

/// `PUT /devices/{deviceId}/installs/{productId}` answer (200).
public struct InstallResult: Codable, Sendable, Equatable {
    public var productId: String
    public var version: Int
    /// Always `installed`.
    public var status: String

    public init(productId: String, version: Int, status: String = "installed") {
        self.productId = productId
        self.version = version
        self.status = status
    }

    public static var schema: JSONValue {
        Schema.object(["productId": Schema.string(), "version": Schema.integer(), "status": Schema.string(enum: ["installed"])])
    }
}

/// `GET /installs` answer: the products installed on at least one of the account's devices (what
/// `restore` reinstalls on a new device besides the account's purchases: its free regions).
public struct AccountInstalls: Codable, Sendable, Equatable {
    /// Product ids, sorted, each once.
    public var productIds: [String]

    public init(productIds: [String]) { self.productIds = productIds }

    public static var schema: JSONValue { Schema.object(["productIds": Schema.array(Schema.string())]) }
}
