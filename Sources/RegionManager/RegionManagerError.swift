import Foundation
import TrailMapAPI

/// Everything that can go wrong on the device side, with a message the user can act on.
public enum RegionManagerError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The server could not be reached after every attempt.
    case serverUnreachable(server: String, attempts: Int, reason: String)
    /// The server kept answering 5xx.
    case serverFailure(status: Int, attempts: Int, message: String)
    /// No token, or the server refused it (401).
    case notLoggedIn(server: String)
    /// The server refused the email and password given to log in (or register an existing account).
    case wrongCredentials(server: String)
    /// A 4xx answer not covered by a more specific case.
    case rejected(status: Int, code: String, message: String)
    /// The product id is not in the catalog.
    case unknownProduct(String)
    /// The account does not own the product.
    case notEntitled(String)
    /// The purchase was refunded or revoked.
    case revoked(String)
    /// The store does not offer the product right now.
    case unavailable(String)
    /// Not enough free disk space for the download.
    case insufficientDisk(needed: Int64, available: Int64, path: String)
    /// The download would go over the storage budget.
    case overBudget(needed: Int64, used: Int64, budget: Int64)
    /// The downloaded file's SHA-256 is not the catalog's; nothing was installed.
    case checksumMismatch(productId: String, expected: String, actual: String)
    /// The server sent something this client does not understand.
    case invalidResponse(String)
    /// The state folder could not be read or written.
    case stateFolder(path: String, reason: String)
    /// The product is not installed on this device.
    case notInstalled(String)
    /// Another process is downloading the same region into the same folder.
    case downloadInProgress(String)
    /// A local file operation failed.
    case fileSystem(path: String, reason: String)
    /// An update's patches could not be applied (the installed region is left as it was).
    case patch(String, String)
    /// No area product covers the point (`center` is `[longitude, latitude]`) at the zooms asked
    /// for (`zooms`, in words, when the request named any); the regions nearest it.
    case areaNotCovered(center: [Double]?, zooms: String?, nearby: [NearbyRegion])
    /// The area does not fit the area product's cap, even with the top zoom lowered (or with the
    /// top zoom the caller fixed); the largest radius that fits, when there is one.
    case areaTooLarge(radiusKm: Double?, largestRadiusKm: Double?, message: String)
    /// The area was refused as asked (radius, box or zooms out of range).
    case invalidArea(String)
    /// The product is sold per area: it is quoted and bought as an area, never bought or installed whole.
    case areaProduct(String)
    /// The product named for a quote is not an area product.
    case notAnAreaProduct(String)
    /// The quote is not one of the account's.
    case unknownQuote(String)
    case quoteExpired(String)
    /// The quote was already bought, with another transaction.
    case quoteUsed(String)
    /// The store transaction already paid for another area or region.
    case transactionUsed(message: String)
    /// The store transaction is for another product than the quote's.
    case wrongAreaProduct(message: String)
    /// The server sent an id or name (`field`: product id, tileset name, area id...) that is not
    /// safe as a file name (`A-Z a-z 0-9 . _ -`, no leading dot, at most 128 characters); nothing
    /// was written.
    case unsafeName(field: String, value: String)
    /// The server is reached over plain http on another machine: passwords and tokens would cross
    /// the network unencrypted. Nothing was sent.
    case insecureHTTP(server: String)

    public var description: String {
        switch self {
        case let .serverUnreachable(server, attempts, reason):
            return "Cannot reach the TrailMap server at \(server) (\(attempts) attempt(s): \(reason)). "
                + "Check your network and the server address, then try again."
        case let .serverFailure(status, attempts, message):
            return
                """
                The server failed with HTTP \(status) after \(attempts) attempt(s)\(message.isEmpty ? "" : ": \(message)"). Try again \
                later.
                """
        case let .notLoggedIn(server):
            return "You are not logged in to \(server), or your session expired. Log in again."
        case let .wrongCredentials(server):
            return "\(server) refused the email or password: they do not match an account there."
        case let .rejected(status, code, message):
            return "The server refused the request (HTTP \(status) \(code)): \(message)"
        case let .unknownProduct(id):
            return "No region \(id) in the catalog."
        case let .notEntitled(id):
            return "You do not own \(id). Buy it first."
        case let .revoked(id):
            return "Your purchase of \(id) was refunded or revoked, so it can no longer be downloaded."
        case let .unavailable(id):
            return "\(id) is not offered by the store right now."
        case let .insufficientDisk(needed, available, path):
            return "Not enough disk space in \(path): the download needs \(needed) bytes, \(available) are free. "
                + "Free some space and try again."
        case let .overBudget(needed, used, budget):
            return "Installing needs \(needed) bytes but \(used) of the \(budget)-byte storage budget are used. "
                + "Uninstall a region or raise the storage budget."
        case let .checksumMismatch(id, expected, actual):
            return "The download of \(id) is corrupted (SHA-256 \(actual), expected \(expected)); it was deleted and nothing "
                + "was installed. Run the install again."
        case let .invalidResponse(what):
            return "The server sent an answer this client does not understand: \(what)"
        case let .stateFolder(path, reason):
            return "Cannot use the state folder \(path): \(reason). Choose another."
        case let .notInstalled(id):
            return "\(id) is not installed on this device."
        case let .downloadInProgress(id):
            return "Another process is downloading \(id) into this folder. Wait for it, or stop it and run the install again."
        case let .fileSystem(path, reason):
            return "File operation failed on \(path): \(reason)"
        case let .patch(id, reason):
            return "The update of \(id) by patch failed, the installed version is unchanged: \(reason)"
        case let .unsafeName(field, value):
            return "The server sent a \(field) that is not safe as a file name: \(String(value.prefix(80)).debugDescription) "
                + "(letters, digits, '.', '_' and '-' only, not starting with '.'). Nothing was changed on this device."
        case let .insecureHTTP(server):
            return "Refusing to talk to \(server) over plain http: your password and session token would cross the network "
                + "unencrypted. Use an https:// server (a server on this machine, such as http://127.0.0.1, needs nothing)."
        default:
            return areaDescription
        }
    }
}
