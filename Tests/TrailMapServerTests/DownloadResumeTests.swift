import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing
@testable import TrailMapServer
import TrailMapTestSupport

/// Bundle downloads resume with Range and If-Range to the exact SHA-256.
@Suite struct DownloadResumeTests {
    static func hex(_ data: Data) -> String { SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined() }

    @Test func interruptedDownloadsResumeAtAnyOffset() async throws {
        let f = try await computed { try StoreFixture() }
        let file = try Data(contentsOf: URL(fileURLWithPath: f.tiles.dir.file("co.mbtiles")))
        let etag = "\"\(Self.hex(file))\""
        try await f.app().test(.live) { client in
            let ann = try await APIUser.register(client, email: "ann@example.com")
            _ = try await ann.buy("colorado")
            let head = try await ann.call(.head, "/api/v1/downloads/colorado")
            #expect(head.status == .ok && head.headers[.contentLength] == String(file.count) && head.headers[.acceptRanges] == "bytes")
            for cut in [1, 4096, file.count / 3, file.count - 1] {
                // What a client kept from an interrupted download, then the rest.
                var got = file.prefix(cut)
                let r = try await ann.call(.get, "/api/v1/downloads/colorado", headers: [.range: "bytes=\(cut)-", .ifRange: etag])
                #expect(r.status == .partialContent)
                #expect(r.headers[.contentRange] == "bytes \(cut)-\(file.count - 1)/\(file.count)")
                got.append(contentsOf: Array(buffer: r.body))
                #expect(Self.hex(got) == Self.hex(file), "resumed at \(cut)")
            }
            let middle = try await ann.call(.get, "/api/v1/downloads/colorado", headers: [.range: "bytes=10-19"])
            #expect(middle.status == .partialContent && Array(buffer: middle.body) == Array(file[10...19]))
            let suffix = try await ann.call(.get, "/api/v1/downloads/colorado", headers: [.range: "bytes=-100"])
            #expect(Array(buffer: suffix.body) == Array(file.suffix(100)))
            // A stale validator (the bundle changed) restarts with the whole file.
            let stale = try await ann.call(.get, "/api/v1/downloads/colorado", headers: [.range: "bytes=100-", .ifRange: "\"old\""])
            #expect(stale.status == .ok && stale.body.readableBytes == file.count)
            let beyond = try await ann.call(.get, "/api/v1/downloads/colorado", headers: [.range: "bytes=\(file.count)-"])
            #expect(beyond.status == .rangeNotSatisfiable && beyond.headers[.contentRange] == "bytes */\(file.count)")
            let free = try await ann.call(.get, "/api/v1/downloads/base")
            #expect(free.status == .ok)
        }
    }

    @Test func rangeHeaderParsing() {
        #expect(StoreAPI.byteRange("bytes=0-", size: 10) == .some(0...9))
        #expect(StoreAPI.byteRange("bytes=5-100", size: 10) == .some(5...9))
        #expect(StoreAPI.byteRange("bytes=-3", size: 10) == .some(7...9))
        #expect(StoreAPI.byteRange("bytes=10-", size: 10) == .some(nil))
        #expect(StoreAPI.byteRange("bytes=5-2", size: 10) == nil)
        #expect(StoreAPI.byteRange("bytes=0-1,3-4", size: 10) == nil)
        #expect(StoreAPI.byteRange("items=0-1", size: 10) == nil)
        #expect(StoreAPI.byteRange("bytes=-0", size: 10) == .some(nil))
        #expect(StoreAPI.byteRange("bytes=99999999999999999999-", size: 10) == nil)
    }
}

/// Hardening, finding 8: a bundle changed in place after publishing (same size) is never sent
/// under the published SHA-256; an untouched copy (new mtime, same bytes) still is.
@Suite struct DownloadIntegrityTests {
    // Hardening finding 8 (docs/notes/hardening.md).
    @Test func aBundleChangedInPlaceWithTheSameSizeAnswers503() async throws {
        let f = try await computed { try StoreFixture() }
        let path = f.tiles.dir.file("co.mbtiles")
        let original = try Data(contentsOf: URL(fileURLWithPath: path))
        try await f.app().test(.live) { client in
            let ann = try await APIUser.register(client, email: "ann@example.com")
            _ = try await ann.buy("colorado")
            let first = try await ann.call(.get, "/api/v1/downloads/colorado")
            #expect(first.status == .ok && Data(Array(buffer: first.body)) == original)

            // Same bytes, new modification time (a copy, a touch): still served.
            try original.write(to: URL(fileURLWithPath: path))
            let touched = try await ann.call(.get, "/api/v1/downloads/colorado")
            #expect(touched.status == .ok && Data(Array(buffer: touched.body)) == original)

            // Ten bytes in the middle rewritten, same size: 503 until published again.
            var changed = original
            for i in 0..<10 { changed[original.count / 2 + i] ^= 0x5A }
            try changed.write(to: URL(fileURLWithPath: path))
            for method in [HTTPRequest.Method.get, .head] {
                let r = try await ann.call(method, "/api/v1/downloads/colorado", headers: [.range: "bytes=0-99"])
                #expect(r.status == .serviceUnavailable, "\(method)")
                #expect(r.headers[.eTag] == nil, "no ETag for content that is not the published one")
                if method == .get { #expect(StoreFixture.errorCode(r) == "bundle_unavailable") }
            }
            // Put back: served again.
            try original.write(to: URL(fileURLWithPath: path))
            let back = try await ann.call(.get, "/api/v1/downloads/colorado")
            #expect(back.status == .ok && back.headers[.eTag] == "\"\(DownloadResumeTests.hex(original))\"")
        }
    }
}
