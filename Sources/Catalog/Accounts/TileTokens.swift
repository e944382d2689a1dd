import Crypto
import Essentials
import Foundation
import Synchronization

/// Short-lived signed tokens that let map libraries fetch a paid region's tiles by URL
/// (`?token=`), since they cannot send an Authorization header. A token is
/// `KEYID.BODY.MAC`: HMAC-SHA256 over `account|product|expiry|session` with a key kept in the
/// catalog (`tileTokenKeys`). `session` tags the login session that asked for it
/// (`AccountRules.sessionTag`), so that logging out ends its tile tokens too (the server
/// checks the session is still live).
///
/// Keys rotate: a new key signs every `rotateAfter` (default a day); a replaced key still checks
/// the tokens it signed until they expire, then is deleted. `trailmap catalog revoke-tile-tokens`
/// replaces them all at once. Each server keeps the keys in memory and reads them again every
/// `refreshInterval`, or at once for a token signed by a key it has not seen (made by another
/// server on the same catalog).
public final class TileTokens: Sendable {
    public let lifetime: TimeInterval
    public let rotateAfter: TimeInterval
    public static let refreshInterval: TimeInterval = 10
    private let catalog: any CatalogStore
    private let ring = Mutex<(keys: [TileTokenKey], fetched: Date)?>(nil)

    public init(catalog: any CatalogStore, lifetime: TimeInterval = 3600, rotateAfter: TimeInterval = 86_400) {
        self.catalog = catalog
        self.lifetime = lifetime
        self.rotateAfter = rotateAfter
    }

    /// A token for one account, product and login session, and when it expires.
    public func issue(
        accountID: String, productID: String, session: String, now: Date = Date()
    ) async throws(CatalogError) -> (token: String, expiresAt: Date) {
        let expires = Date(timeIntervalSince1970: (now.timeIntervalSince1970 + lifetime).rounded(.down))
        let body = Data("\(accountID)|\(productID)|\(Int64(expires.timeIntervalSince1970))|\(session)".utf8)
        let (keyID, mac) = try await sign(body, now: now)
        return ("\(keyID)." + Base64URL.encode(body) + "." + Base64URL.encode(mac), expires)
    }

    /// The account id and session tag of a valid, unexpired token for `productID`, or nil.
    public func holder(
        of token: String, productID: String, now: Date = Date()
    ) async throws(CatalogError) -> (accountID: String, session: String)? {
        guard token.utf8.count <= 512 else { return nil }
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let keyID = Int64(parts[0]), let body = Base64URL.decode(parts[1]),
            let mac = Base64URL.decode(parts[2])
        else { return nil }
        guard try await verify(body, keyID: keyID, mac: mac, now: now), let text = String(data: body, encoding: .utf8) else { return nil }
        let fields = text.split(separator: "|", omittingEmptySubsequences: false)
        guard fields.count == 4, fields[1] == productID, let expiry = Int64(fields[2]),
            Double(expiry) > now.timeIntervalSince1970
        else { return nil }
        return (String(fields[0]), String(fields[3]))
    }

    /// Signs `message` with the current key (e.g. a bundle link): the key's id and the HMAC-SHA256.
    public func sign(_ message: Data, now: Date = Date()) async throws(CatalogError) -> (keyID: Int64, mac: Data) {
        let key = try await keys(now: now)[0]
        return (key.id, Data(HMAC<SHA256>.authenticationCode(for: message, using: SymmetricKey(data: key.secret))))
    }

    /// Whether `mac` is key `keyID`'s HMAC-SHA256 of `message` (a key not known yet is looked
    /// for in the catalog once: another server may have made it).
    public func verify(_ message: Data, keyID: Int64, mac: Data, now: Date = Date()) async throws(CatalogError) -> Bool {
        var keys = try await self.keys(now: now)
        if let newest = keys.first, keyID > newest.id { keys = try await self.keys(now: now, reload: true) }
        guard let key = keys.first(where: { $0.id == keyID }) else { return false }
        return HMAC<SHA256>.isValidAuthenticationCode(mac, authenticating: message, using: SymmetricKey(data: key.secret))
    }

    /// The keys, newest first: the cached ones while fresh, else read (and rotated) again.
    private func keys(now: Date, reload: Bool = false) async throws(CatalogError) -> [TileTokenKey] {
        if !reload, let cached = ring.withLock({ $0 }), let newest = cached.keys.first,
            now.timeIntervalSince(cached.fetched) < Self.refreshInterval, now.timeIntervalSince(cached.fetched) >= 0,
            now.timeIntervalSince(newest.createdAt) < rotateAfter
        {
            return cached.keys
        }
        let keys = try await catalog.tileTokenKeys(now: now, rotateAfter: rotateAfter, keep: lifetime)
        ring.withLock { $0 = (keys, now) }
        return keys
    }
}
