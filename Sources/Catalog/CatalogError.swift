import Foundation

/// What can go wrong in the catalog; each case reads as a message a user can act on.
public enum CatalogError: Error, CustomStringConvertible, Equatable, Sendable {
    case database(String)
    case invalidEmail
    case weakPassword(minimum: Int)
    case emailTaken
    case invalidCredentials
    case tooManyAttempts(retryAfter: Int)
    /// Too many password hashes are running or waiting: try again shortly.
    case busy(retryAfter: Int)
    case unauthorized
    case unknownProduct(String)
    case unknownDevice(String)
    /// A product version that was never published.
    case unknownVersion(productID: String, published: Int)
    case notEntitled(String)
    case revoked(String)
    case transactionClaimed
    case accountTokenMismatch
    case productFile(path: String, reason: String)
    case bundle(path: String, reason: String)
    case invalidArgument(String)
    /// An area product was bought or downloaded like a region.
    case areaProduct(String)
    case unknownQuote(String)
    case quoteExpired(String)
    /// The quote was already bought (with another transaction).
    case quoteUsed(String)
    /// The transaction already paid for something else.
    case transactionUsed(String)
    /// The transaction is for another product than the quote's.
    case wrongAreaProduct(expected: String, got: String)

    public var description: String {
        switch self {
        case let .database(m): "catalog database error: \(m)"
        case .invalidEmail: "that is not an email address"
        case let .weakPassword(n): "the password must have \(n) to \(AccountRules.maximumPasswordLength) characters"
        case .emailTaken: "an account with that email already exists; log in instead"
        case .invalidCredentials: "wrong email or password"
        case let .tooManyAttempts(s):
            """
            too many attempts (failed logins for this account or from this address, or registrations from this address); try again in \
            \(s) seconds
            """
        case let .busy(s): "the server is busy checking other passwords; try again in \(s) seconds"
        case .unauthorized: "log in first: the token is missing, unknown, expired or logged out"
        case let .unknownProduct(id): "no product \(id) in the catalog"
        case let .unknownDevice(id): "no device \(id) on this account; register the device first"
        case let .unknownVersion(id, published): "\(id) has versions 1 to \(published) (the published one)"
        case let .notEntitled(id): "this account does not own \(id); buy it first"
        case let .revoked(id): "the purchase of \(id) was refunded or revoked"
        case .transactionClaimed: "this store transaction belongs to another account"
        case .accountTokenMismatch: "this store transaction was made for another account (appAccountToken differs)"
        case let .productFile(path, reason): "\(path): \(reason)"
        case let .bundle(path, reason): "bundle \(path): \(reason)"
        case let .invalidArgument(m): m
        case let .areaProduct(id):
            "\(id) is sold per area: ask for a quote (POST /api/v1/areas/quotes) and buy the quote (POST /api/v1/areas)"
        case let .unknownQuote(id): "no quote \(id) for this account; ask for a quote first"
        case let .quoteExpired(id): "quote \(id) has expired; ask for a new quote"
        case let .quoteUsed(id): "quote \(id) was already bought with another transaction"
        case let .transactionUsed(id):
            "store transaction \(id) already paid for another area or region; each area needs a purchase of its own"
        case let .wrongAreaProduct(expected, got): "the transaction is for \(got), but the quote is for \(expected)"
        }
    }

    /// A stable machine-readable code for API errors.
    public var code: String {
        switch self {
        case .database: "database"
        case .invalidEmail: "invalid_email"
        case .weakPassword: "weak_password"
        case .emailTaken: "email_taken"
        case .invalidCredentials: "invalid_credentials"
        case .tooManyAttempts: "too_many_attempts"
        case .busy: "busy"
        case .unauthorized: "unauthorized"
        case .unknownProduct: "unknown_product"
        case .unknownDevice: "unknown_device"
        case .unknownVersion: "unknown_version"
        case .notEntitled: "not_entitled"
        case .revoked: "revoked"
        case .transactionClaimed: "transaction_claimed"
        case .accountTokenMismatch: "account_token_mismatch"
        case .productFile: "invalid_product_file"
        case .bundle: "invalid_bundle"
        case .invalidArgument: "bad_request"
        case .areaProduct: "area_product"
        case .unknownQuote: "unknown_quote"
        case .quoteExpired: "quote_expired"
        case .quoteUsed: "quote_used"
        case .transactionUsed: "transaction_used"
        case .wrongAreaProduct: "wrong_product"
        }
    }
}
