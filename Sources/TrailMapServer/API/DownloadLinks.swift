import Catalog
import Essentials
import Foundation
import Hummingbird
import TrailMapAPI

/// Signed bundle links for CDNs (issue "Scale-out"). `POST /api/v1/download-links` gives an
/// entitled account `/bundles/{productId}/{version}/{sha256}.mbtiles?exp=&acct=&key=&sig=`: an
/// HMAC (the catalog's rotating tile-token keys, so any server on the catalog checks it) over the
/// product, version, SHA-256, expiry and account. Expiries are whole five minutes, ten to fifteen
/// minutes ahead, so one account asking again gets the same URL. The origin checks on every
/// request that the account is still entitled (a refund ends its links at once there), and
/// answers `s-maxage=60`, so a CDN asks it again, by ETag, at least every minute: a refunded
/// link is served from a CDN's copy for at most that minute. The price: a CDN keeps a copy per
/// account and link, not one per bundle. A link for a version that is no longer published is 410.
extension StoreAPI {
    /// `POST /api/v1/download-links`
    func downloadLink(_ request: Request) async throws -> Response {
        let a = try await account(request)
        let b = try await body(DownloadLinkRequest.self, request)
        guard ProductFile.isValidProductID(b.productId) else {
            throw APIError(CatalogError.unknownProduct(String(b.productId.prefix(128))))
        }
        let p = try await catalog.downloadable(productID: b.productId, account: a)
        let now = Date()
        let expires = (Int64(now.timeIntervalSince1970) / Self.linkStep + 3) * Self.linkStep
        let (keyID, mac) = try await tileTokens.sign(Self.linkMessage(p.id, p.version, p.sha256, expires, account: a.id), now: now)
        let url = "/bundles/\(p.id)/\(p.version)/\(p.sha256).mbtiles?exp=\(expires)&acct=\(a.id)&key=\(keyID)&sig=\(Base64URL.encode(mac))"
        return JSONReply.make(
            DownloadLink(
                url: url, expiresAt: JSONReply.time(Date(timeIntervalSince1970: Double(expires))),
                version: p.version, size: p.size, sha256: p.sha256),
            status: .created, request: request, cacheControl: "no-store")
    }

    /// `GET|HEAD /bundles/{productId}/{version}/{sha256}.mbtiles?exp=&key=&sig=`
    func linkedBundle(_ request: Request, product: Substring, version: Substring, file: Substring) async throws -> Response {
        let id = try Self.productID(product)
        guard let v = Int(version), file.hasSuffix(".mbtiles") else { throw APIError.notFound("not_found", "no such bundle link") }
        let sha = String(file.dropLast(8))
        let q = request.uri.queryParameters
        guard let expires = q["exp"].flatMap({ Int64($0) }), let keyID = q["key"].flatMap({ Int64($0) }),
            let account = q["acct"].map(String.init), Self.isLinkAccount(account),
            let mac = q["sig"].flatMap({ Base64URL.decode($0) }),
            try await tileTokens.verify(Self.linkMessage(id, v, sha, expires, account: account), keyID: keyID, mac: mac)
        else {
            throw APIError(
                .forbidden, code: "invalid_link",
                message: "this download link is not valid: ask the API for a new one (POST /api/v1/download-links)")
        }
        let now = Int64(Date().timeIntervalSince1970)
        guard expires > now else {
            throw APIError(
                .forbidden, code: "link_expired",
                message: "this download link has expired: ask the API for a new one (POST /api/v1/download-links)")
        }
        guard let p = try await catalog.product(id: id), p.version == v, p.sha256 == sha else {
            throw APIError(
                .gone, code: "version_gone", message: "version \(v) of \(id) is no longer published: ask for a link to the current one")
        }
        let entitled = p.free ? true : try await catalog.isEntitled(accountID: account, productID: p.id)
        guard entitled else {
            throw APIError(
                .forbidden, code: "link_revoked",
                message: "the purchase this link was made for is no longer active (refunded or revoked)")
        }
        return try await bundleResponse(request, p, cacheControl: "public, max-age=\(expires - now), s-maxage=60")
    }

    /// Links expire on multiples of this many seconds.
    static let linkStep: Int64 = 300

    /// What a link signs.
    static func linkMessage(_ product: String, _ version: Int, _ sha256: String, _ expires: Int64, account: String) -> Data {
        Data("bundle|\(product)|\(version)|\(sha256)|\(expires)|\(account)".utf8)
    }

    /// Whether a link's `acct` can be an account id (bounded, no separator of the signed message).
    static func isLinkAccount(_ s: String) -> Bool {
        !s.isEmpty && s.utf8.count <= 128 && s.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "|") }
    }
}
