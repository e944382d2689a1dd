import Crypto
import Essentials
import Foundation

/// Short-lived signed tokens that let map libraries fetch a paid region's tiles by URL
/// (`?token=`), since they cannot send an Authorization header. HMAC-SHA256 over
/// `account|product|expiry|session` with a secret kept in the catalog database; `session` tags
/// the login session that asked for it (`CatalogDatabase.sessionTag`), so that logging out ends
/// its tile tokens too (the server checks the session is still live).
public struct TileTokens: Sendable {
    private let key: SymmetricKey
    public let lifetime: TimeInterval

    public init(secret: Data, lifetime: TimeInterval = 3600) {
        key = SymmetricKey(data: secret)
        self.lifetime = lifetime
    }

    /// A token for one account, product and login session, and when it expires.
    public func issue(accountID: String, productID: String, session: String, now: Date = Date()) -> (token: String, expiresAt: Date) {
        let expires = Date(timeIntervalSince1970: (now.timeIntervalSince1970 + lifetime).rounded(.down))
        let body = Data("\(accountID)|\(productID)|\(Int64(expires.timeIntervalSince1970))|\(session)".utf8)
        let mac = Data(HMAC<SHA256>.authenticationCode(for: body, using: key))
        return (Base64URL.encode(body) + "." + Base64URL.encode(mac), expires)
    }

    /// The account id and session tag of a valid, unexpired token for `productID`, or nil.
    public func holder(of token: String, productID: String, now: Date = Date()) -> (accountID: String, session: String)? {
        guard token.utf8.count <= 512 else { return nil }
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, let body = Base64URL.decode(parts[0]), let mac = Base64URL.decode(parts[1]),
              HMAC<SHA256>.isValidAuthenticationCode(mac, authenticating: body, using: key),
              let text = String(data: body, encoding: .utf8)
        else { return nil }
        let fields = text.split(separator: "|", omittingEmptySubsequences: false)
        guard fields.count == 4, fields[1] == productID, let expiry = Int64(fields[2]),
              Double(expiry) > now.timeIntervalSince1970 else { return nil }
        return (String(fields[0]), String(fields[3]))
    }
}
