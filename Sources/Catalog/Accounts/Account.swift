import Foundation

/// A store account.
public struct Account: Sendable, Equatable, Codable {
    public var id: String
    public var email: String
    /// The UUID the app hands StoreKit so signed transactions name this account.
    public var appAccountToken: String

    /// Memberwise, for the catalog backends in other modules of the package.
    package init(id: String, email: String, appAccountToken: String) {
        self.id = id
        self.email = email
        self.appAccountToken = appAccountToken
    }
}

/// A login: the opaque bearer token (shown once; only its hash is stored) and when it expires.
public struct Session: Sendable, Equatable {
    public var token: String
    public var expiresAt: Date
    public var account: Account

    /// Memberwise, for the catalog backends in other modules of the package.
    package init(token: String, expiresAt: Date, account: Account) {
        self.token = token
        self.expiresAt = expiresAt
        self.account = account
    }
}

/// A device of an account (a phone, a tablet, a `trailmap regions` state folder).
public struct Device: Sendable, Equatable, Codable {
    public var id: String
    public var name: String

    /// Memberwise, for the catalog backends in other modules of the package.
    package init(id: String, name: String) {
        self.id = id
        self.name = name
    }
}
