import Foundation

/// A store account.
public struct Account: Sendable, Equatable, Codable {
    public var id: String
    public var email: String
    /// The UUID the app hands StoreKit so signed transactions name this account.
    public var appAccountToken: String
}

/// A login: the opaque bearer token (shown once; only its hash is stored) and when it expires.
public struct Session: Sendable, Equatable {
    public var token: String
    public var expiresAt: Date
    public var account: Account
}

/// A device of an account (a phone, a tablet, a `trailmap regions` state folder).
public struct Device: Sendable, Equatable, Codable {
    public var id: String
    public var name: String
}
