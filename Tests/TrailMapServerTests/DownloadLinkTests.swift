import Catalog
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
        let f = try StoreFixture()
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
            #expect(Self.link(again) == url, "the same URL within the hour: one CDN copy")

            // No credentials needed; public, immutable, ETag = SHA-256, Range.
            let whole = try await client.execute(uri: url, method: .get)
            #expect(whole.status == .ok && Data(Array(buffer: whole.body)) == bundle)
            #expect(whole.headers[.cacheControl]?.hasPrefix("public, max-age=") == true)
            #expect(whole.headers[.cacheControl]?.hasSuffix(", immutable") == true)
            #expect(whole.headers[.eTag] == "\"\(FileSHA256.hex(of: bundle))\"")
            let part = try await client.execute(uri: url, method: .get, headers: [.range: "bytes=100-199"])
            #expect(part.status == .partialContent && Data(Array(buffer: part.body)) == bundle[100..<200])
            let head = try await client.execute(uri: url, method: .head)
            #expect(head.status == .ok && head.body.readableBytes == 0)

            // Forged: another signature, another product or version in the path, a missing part.
            let forgedSig = url.replacingOccurrences(of: "sig=", with: "sig=AA")
            let otherProduct = url.replacingOccurrences(of: "/bundles/colorado/", with: "/bundles/utah/")
            let otherExpiry = url.replacingOccurrences(of: "exp=", with: "exp=9")
            for bad in [forgedSig, otherProduct, otherExpiry, String(url.prefix { $0 != "?" })] {
                let r = try await client.execute(uri: bad, method: .get)
                #expect(r.status == .forbidden && StoreFixture.errorCode(r) == "invalid_link", "\(bad): \(r.status)")
            }

            // Expired: a link signed with the catalog's key for an expiry in the past.
            let (sha, past) = (FileSHA256.hex(of: bundle), Int64(Date().timeIntervalSince1970) - 10)
            let tokens = TileTokens(catalog: f.catalog)
            let (key, mac) = try await tokens.sign(StoreAPI.linkMessage("colorado", 1, sha, past))
            let expired = try await client.execute(
                uri: "/bundles/colorado/1/\(sha).mbtiles?exp=\(past)&key=\(key)&sig=\(Base64URL.encode(mac))", method: .get)
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
}
