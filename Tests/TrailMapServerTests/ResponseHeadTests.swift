import HTTPTypes
import NIOCore
import Testing
import TileCache
@testable import TrailMapServer

/// `ResponseHead.writeTile` (the fast path's bytes) and `TileAnswer.headers` (Hummingbird's
/// fields) spell the tile header list twice: they must stay the same list.
@Suite struct ResponseHeadTests {
    @Test(arguments: [false, true])
    func tileHeadIsTheGenericHeadOfTheAnswersFields(notModified: Bool) {
        var body = ByteBuffer()
        body.writeBytes([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 1, 2, 3])
        let tile = CachedTile(buffer: body, etag: "\"abc123\"")
        let answer = TileResponder.TileAnswer(
            notModified: notModified, etag: tile.etag, cacheControl: "public, max-age=3600", body: tile.buffer,
            contentType: tile.contentType)
        var head = ByteBuffer(), generic = ByteBuffer()
        let date = "Sun, 22 Nov 2026 19:00:00 GMT"
        ResponseHead.writeTile(answer, date: date, connection: "keep-alive", into: &head)
        ResponseHead.write(status: answer.status, headers: answer.headers, date: date, connection: "keep-alive", into: &generic)
        #expect(String(buffer: head) == String(buffer: generic))
        let text = String(buffer: head)
        #expect(text.contains("Content-Type: image/png\r\n") == !notModified)
        #expect(text.hasPrefix(notModified ? "HTTP/1.1 304 Not Modified\r\n" : "HTTP/1.1 200 OK\r\n"))
        #expect(text.contains("Content-Length: 11\r\n") == !notModified)
        #expect(text.hasSuffix("Date: \(date)\r\nServer: trailmap\r\n\r\n"))
    }
}

/// If-None-Match is split as bytes (scripts/fuzz.sh found a comma swallowed by a combining mark).
@Suite struct ETagMatchingTests {
    @Test func listMembersAreSplitOnTheCommaByte() {
        let etag = "\"0123456789abcdef0123456789abcdef\""
        #expect(TileRequestParsing.etagMatches("\"x\"\u{06DD}, \(etag)", etag: etag))
        #expect(TileRequestParsing.etagMatches("\"x\",\u{301}\(etag)", etag: etag) == false, "the mark belongs to the member")
        #expect(TileRequestParsing.etagMatches("\"x\",\t W/\(etag) ", etag: etag))
        #expect(TileRequestParsing.etagMatches(" * ", etag: etag))
        #expect(!TileRequestParsing.etagMatches("\"other\", W/\"x\"", etag: etag))
    }
}
