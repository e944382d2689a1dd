import Catalog
import CatalogSQLite
import Crypto
import Essentials
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing
@testable import TrailMapServer
import TrailMapTestSupport

/// Signed bundle links (issue "Scale-out": immutable, versioned URLs a CDN can cache, that do not
/// leak paid bundles): only an entitled account gets one; the link needs no credentials until it
/// expires, answers public immutable bytes with Range, works on every server of the catalog, and
/// is refused when forged, expired, or for a version no longer published.
@Suite struct DownloadLinkTests {
    static func link(_ r: TestResponse) -> String { StoreFixture.json(r)["url"] as? String ?? "" }

    @Test func anEntitledAccountsLinkServesTheBundleToAnyoneUntilItExpires() async throws {
        let f = try await computed { try StoreFixture() }
        let bundle = try Data(contentsOf: URL(fileURLWithPath: f.tiles.dir.file("co.mbtiles")))
        try await f.app().test(.live) { client in
            let ann = try await APIUser.register(client, email: "ann@example.com")
            let refused = try await ann.call(.post, "/api/v1/download-links", ["productId": "colorado"])
            #expect(refused.status == .forbidden, "not bought yet: \(refused.status)")
            #expect(try await ann.buy("colorado").status == .created)
            let made = try await ann.call(.post, "/api/v1/download-links", ["productId": "colorado"])
            #expect(made.status == .created)
            let url = Self.link(made)
            #expect(url.hasPrefix("/bundles/colorado/1/\(FileSHA256.hex(of: bundle)).mbtiles?exp="), "\(url)")
            let again = try await ann.call(.post, "/api/v1/download-links", ["productId": "colorado"])
            #expect(Self.link(again) == url, "the same URL within five minutes")
            let exp = try #require(URLComponents(string: url)?.queryItems?.first { $0.name == "exp" }?.value.flatMap { Int64($0) })
            let ahead = exp - Int64(Date().timeIntervalSince1970)
            #expect(ahead > 590 && ahead <= 900, "links live ten to fifteen minutes: \(ahead) s")

            // No credentials needed; public, immutable, ETag = SHA-256, Range.
            let whole = try await client.execute(uri: url, method: .get)
            #expect(whole.status == .ok && Data(Array(buffer: whole.body)) == bundle)
            #expect(whole.headers[.cacheControl]?.hasPrefix("public, max-age=") == true)
            #expect(whole.headers[.cacheControl]?.hasSuffix(", s-maxage=60") == true, "a CDN asks the origin again every minute")
            #expect(whole.headers[.eTag] == "\"\(FileSHA256.hex(of: bundle))\"")
            let part = try await client.execute(uri: url, method: .get, headers: [.range: "bytes=100-199"])
            #expect(part.status == .partialContent && Data(Array(buffer: part.body)) == bundle[100..<200])
            let head = try await client.execute(uri: url, method: .head)
            #expect(head.status == .ok && head.body.readableBytes == 0)

            // Forged: another signature, another product or version in the path, a missing part.
            let forgedSig = url.replacingOccurrences(of: "sig=", with: "sig=AA")
            let otherProduct = url.replacingOccurrences(of: "/bundles/colorado/", with: "/bundles/utah/")
            let otherExpiry = url.replacingOccurrences(of: "exp=", with: "exp=9")
            let otherAccount = url.replacingOccurrences(of: "acct=", with: "acct=x")
            for bad in [forgedSig, otherProduct, otherExpiry, otherAccount, String(url.prefix { $0 != "?" })] {
                let r = try await client.execute(uri: bad, method: .get)
                #expect(r.status == .forbidden && StoreFixture.errorCode(r) == "invalid_link", "\(bad): \(r.status)")
            }

            // Expired: a link signed with the catalog's key for an expiry in the past.
            let (sha, past) = (FileSHA256.hex(of: bundle), Int64(Date().timeIntervalSince1970) - 10)
            let tokens = TileTokens(catalog: f.catalog)
            let annID = try f.catalog.authenticate(token: ann.token).id
            let (key, mac) = try await tokens.sign(StoreAPI.linkMessage("colorado", 1, sha, past, account: annID))
            let expired = try await client.execute(
                uri: "/bundles/colorado/1/\(sha).mbtiles?exp=\(past)&acct=\(annID)&key=\(key)&sig=\(Base64URL.encode(mac))", method: .get)
            #expect(expired.status == .forbidden && StoreFixture.errorCode(expired) == "link_expired")

            // Another server on the same catalog accepts the link.
            try await f.app().test(.live) { second in
                let r = try await second.execute(uri: url, method: .get, headers: [.range: "bytes=0-15"])
                #expect(r.status == .partialContent && String(buffer: r.body) == "SQLite format 3\0")
            }

            // A new version is published: the old link names bytes that are gone.
            try f.tiles.bundle("co", shade: 9)
            _ = try f.catalog.publish(try ProductFile.load(path: f.tiles.dir.file("products.json")), tilesDirectory: f.tiles.dir.path)
            let gone = try await client.execute(uri: url, method: .get)
            #expect(gone.status == .gone && StoreFixture.errorCode(gone) == "version_gone", "\(gone.status)")
            let fresh = Self.link(try await ann.call(.post, "/api/v1/download-links", ["productId": "colorado"]))
            #expect(fresh.hasPrefix("/bundles/colorado/2/"), "\(fresh)")
            #expect(try await client.execute(uri: fresh, method: .get).status == .ok)
        }
    }

    /// Hardening round 3, finding 4: a link stops serving at the origin as soon as the purchase it
    /// was made for is refunded (it served the bundle `public, immutable` for up to two hours).
    @Test func aRefundEndsTheAccountsLinksAtTheOrigin() async throws {
        let f = try await computed { try StoreFixture() }
        try await f.app().test(.live) { client in
            let ann = try await APIUser.register(client, email: "ann@example.com")
            let bought = try await ann.buy("colorado")
            #expect(bought.status == .created)
            let url = Self.link(try await ann.call(.post, "/api/v1/download-links", ["productId": "colorado"]))
            #expect(try await client.execute(uri: url, method: .get, headers: [.range: "bytes=0-15"]).status == .partialContent)
            let txn = try #require(StoreFixture.json(bought)["transactionId"] as? String)
            let note = try await ann.call(.post, "/api/v1/sandbox/notifications", ["notificationType": "REFUND", "transactionId": txn])
            let payload = try #require(StoreFixture.json(note)["signedPayload"] as? String)
            let posted = try await client.execute(
                uri: "/api/v1/store/notifications", method: .post,
                headers: [.contentType: "application/json"], body: StoreFixture.body(["signedPayload": payload]))
            #expect(StoreFixture.json(posted)["result"] as? String == "revoked")
            let after = try await client.execute(uri: url, method: .get)
            #expect(after.status == .forbidden && StoreFixture.errorCode(after) == "link_revoked", "\(after.status)")
        }
    }
}
