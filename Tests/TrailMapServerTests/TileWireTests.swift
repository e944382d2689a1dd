import Foundation
import Logging
import NIOCore
import NIOEmbedded
import Testing
import TileCache
import TileGeometry
import TileStore
@testable import TrailMapServer
import TrailMapTestSupport

/// `RawTileRequest`: what it accepts, what it leaves to NIO's parser, and when it waits.
@Suite struct RawTileRequestTests {
    func parse(_ text: String, client: String? = nil) -> RawTileRequest.Parse {
        Array(text.utf8).withUnsafeBytes { RawTileRequest.parse($0, clientHeader: client.map { Array($0.utf8) }) }
    }

    @Test func readsTheCommonTileRequest() {
        let text = "GET /tiles/co/4/3/6.png?v=2 HTTP/1.1\r\nHost: x\r\nIf-None-Match: \"ab\" \r\nX-Client: me\r\n\r\nGET /next"
        let expected = RawTileRequest(
            head: false, target: "/tiles/co/4/3/6.png?v=2", http10: false, keepAlive: true,
            ifNoneMatch: "\"ab\"", client: "me")
        #expect(parse(text, client: "x-client") == .request(expected, length: text.utf8.count - "GET /next".utf8.count))
        var head = expected
        head.head = true
        head.client = nil
        let headText = "HEAD /tiles/co/4/3/6.png?v=2 HTTP/1.1\r\nif-none-match: \"ab\"\r\n\r\n"
        #expect(parse(headText) == .request(head, length: headText.utf8.count))
    }

    @Test func keepAliveFollowsTheVersionAndConnectionHeader() throws {
        func keep(_ version: String, _ connection: String?) throws -> Bool {
            let text = "GET /tiles/a/0/0/0.png HTTP/\(version)\r\n" + (connection.map { "Connection: \($0)\r\n" } ?? "") + "\r\n"
            guard case let .request(r, _) = parse(text) else { throw Failure("not read: \(text)") }
            return r.keepAlive
        }
        #expect(try keep("1.1", nil) && !keep("1.1", "close") && !keep("1.1", "Keep-Alive, CLOSE"))
        #expect(try !keep("1.0", nil) && keep("1.0", "keep-alive") && !keep("1.0", "keep-alive, close"))
    }

    @Test(arguments: [
        "POST /tiles/a/0/0/0.png HTTP/1.1\r\n\r\n",
        "get /tiles/a/0/0/0.png HTTP/1.1\r\n\r\n",
        "GET /healthz HTTP/1.1\r\n\r\n",
        "GET http://x/tiles/a/0/0/0.png HTTP/1.1\r\n\r\n",
        "GET /tiles/a/0/0/0.png HTTP/2.0\r\n\r\n",
        "GET /tiles/a/0/0/0.png HTTP/1.1\nHost: x\n\n",
        "GET /tiles/a/0/0/0.png HTTP/1.1\r\nHost: x\r\n folded\r\n\r\n",
        "GET /tiles/a/0/0/0.png HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
        "GET /tiles/a/0/0/0.png HTTP/1.1\r\nContent-Length: 5\r\n\r\nhello",
        "GET /tiles/a/0/0/0.png HTTP/1.1\r\nExpect: 100-continue\r\n\r\n",
        "GET /tiles/a/0/0/0.png HTTP/1.1\r\nConnection: Upgrade\r\nUpgrade: h2c\r\n\r\n",
        "GET /tiles/a/0/0/0.png HTTP/1.1\r\nBad Name: x\r\n\r\n",
        "GET /tiles/a/0/0/0.png HTTP/1.1\r\nX: a\u{7F}b\r\n\r\n",
        "GET /tiles/a/0/0/0.png HTTP/1.1\r\n: empty\r\n\r\n",
        "GET /tiles/a/0/\u{1}/0.png HTTP/1.1\r\n\r\n",
        "GET  /tiles/a/0/0/0.png HTTP/1.1\r\n\r\n"
    ])
    func leavesAnythingElseToTheFullParser(_ text: String) {
        #expect(parse(text) == .other, "\(text.debugDescription)")
    }

    @Test func waitsForTheRestOfARequest() {
        let text = "GET /tiles/co/4/3/6.png HTTP/1.1\r\nHost: x\r\nIf-None-Match: \"ab\"\r\n\r\n"
        let bytes = Array(text.utf8)
        for k in 1..<bytes.count {
            let r = bytes[0..<k].withUnsafeBytes { RawTileRequest.parse($0) }
            #expect(r == .incomplete, "\(k) of \(bytes.count) bytes: \(r)")
        }
        #expect(parse("GET /tiles/" + String(repeating: "a", count: 2100)) == .other, "a target too long")
        #expect(
            parse("GET /tiles/a/0/0/0.png HTTP/1.1\r\n" + String(repeating: "X-Pad: 0123456789\r\n", count: 500)) == .other,
            "a head too long")
    }
}

/// `TileWire` in a channel pipeline (NIO's `EmbeddedChannel`, the real handler and a real bundle):
/// it answers tile requests from the bytes, and hands the first request it does not answer and
/// every byte after it on unchanged.
@Suite struct TileWireTests {
    let fixture = ServerFixture()

    func channel() throws -> (EmbeddedChannel, ConnectionDeadlines.State) {
        let config = ServerConfiguration(tilesDirectory: fixture.dir.path)
        let logger = Logger(label: "test")
        let registry = TilesetRegistry(directory: config.tilesDirectory, logger: logger, cache: CacheSystem(config.cache))
        registry.refresh()
        let responder = TileResponder(registry: registry, config: config, metrics: ServerMetrics(), logger: logger)
        let state = ConnectionDeadlines.State(limits: .init(), onClose: { _ in })
        return (EmbeddedChannel(handler: TileWire(responder: responder, deadlines: state)), state)
    }

    func send(_ channel: EmbeddedChannel, _ text: String) throws {
        try channel.writeInbound(ByteBuffer(string: text))
    }

    /// Everything written to the socket so far, as text (bodies as Latin-1, byte for byte).
    func written(_ channel: EmbeddedChannel) throws -> [UInt8] {
        var out: [UInt8] = []
        while let part = try channel.readOutbound(as: ByteBuffer.self) { out += Array(part.readableBytesView) }
        return out
    }

    func forwarded(_ channel: EmbeddedChannel) throws -> String {
        var out = ""
        while let part = try channel.readInbound(as: ByteBuffer.self) { out += String(buffer: part) }
        return out
    }

    func uri(_ t: TileID) -> String { "/tiles/co/\(t.z)/\(t.x)/\(t.y).png" }

    @Test func answersTileRequestsFromTheBytes() throws {
        let t = WebMercator.tile(lon: -105, lat: 39, zoom: 4)
        try fixture.bundle("co")
        let png = try ServerFixture.png(t)
        let (channel, state) = try channel()
        state.requestBytes()
        try send(channel, "GET \(uri(t)) HTTP/1.1\r\nHost: x\r\n\r\nHEAD \(uri(t)) HTTP/1.1\r\n\r\n")
        let out = try written(channel)
        let text = String(decoding: out, as: UTF8.self)
        #expect(text.hasPrefix("HTTP/1.1 200 OK\r\n") && text.components(separatedBy: "HTTP/1.1 200 OK").count == 3, "two answers")
        #expect(out.count > png.count && Array(out.dropFirst(out.firstRange(of: png)?.lowerBound ?? out.count).prefix(png.count)) == png)
        #expect(try forwarded(channel).isEmpty, "nothing goes on to the HTTP parser")
        #expect(state.requestStarted == nil, "the request deadline stops at the end of the requests answered")
        _ = try channel.finish()
    }

    @Test func aRequestSplitAcrossReadsIsAnsweredWhenWhole() throws {
        let t = WebMercator.tile(lon: -105, lat: 39, zoom: 4)
        try fixture.bundle("co")
        let (channel, _) = try channel()
        try send(channel, "GET \(uri(t)) HTT")
        #expect(try written(channel).isEmpty && forwarded(channel).isEmpty)
        try send(channel, "P/1.1\r\nHost: x\r\n")
        #expect(try written(channel).isEmpty && forwarded(channel).isEmpty)
        try send(channel, "\r\n")
        #expect(String(decoding: try written(channel), as: UTF8.self).hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(try forwarded(channel).isEmpty)
        _ = try channel.finish()
    }

    @Test func theFirstRequestItDoesNotAnswerAndEverythingAfterGoOnUnchanged() throws {
        let t = WebMercator.tile(lon: -105, lat: 39, zoom: 4)
        try fixture.bundle("co")
        let (channel, _) = try channel()
        let tile = "GET \(uri(t)) HTTP/1.1\r\nHost: x\r\n\r\n"
        let rest = "GET /healthz HTTP/1.1\r\n\r\n" + tile + "GET /tiles/co/9/0/0.png HTTP/1.1\r\n\r\n"
        try send(channel, tile + rest)
        #expect(
            String(decoding: try written(channel), as: UTF8.self).components(separatedBy: "HTTP/1.1 200 OK").count == 2,
            "only the first request is answered here")
        #expect(try forwarded(channel) == rest)
        try send(channel, tile)
        #expect(try written(channel).isEmpty && forwarded(channel) == tile, "the rest of the connection goes on too")
        _ = try channel.finish()
    }

    @Test func requestsItCannotAnswerGoOn() throws {
        let t = WebMercator.tile(lon: -105, lat: 39, zoom: 4)
        try fixture.bundle("co")
        // A bad coordinate, an unknown tileset, and a chunked body: Hummingbird's path answers them.
        for text in [
            "GET /tiles/co/4/x/1.png HTTP/1.1\r\n\r\n", "GET /tiles/nope/4/3/6.png HTTP/1.1\r\n\r\n",
            "GET \(uri(t)) HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"
        ] {
            let (channel, _) = try channel()
            try send(channel, text)
            #expect(try written(channel).isEmpty && forwarded(channel) == text, "\(text.debugDescription)")
            _ = try channel.finish()
        }
    }

    @Test func connectionCloseIsAnsweredThenTheRestIgnored() throws {
        let t = WebMercator.tile(lon: -105, lat: 39, zoom: 4)
        try fixture.bundle("co")
        let (channel, _) = try channel()
        try send(channel, "GET \(uri(t)) HTTP/1.1\r\nConnection: close\r\n\r\nGET \(uri(t)) HTTP/1.1\r\n\r\n")
        let text = String(decoding: try written(channel), as: UTF8.self)
        #expect(text.hasPrefix("HTTP/1.1 200 OK\r\n") && text.contains("\r\nConnection: close\r\n"))
        #expect(try text.components(separatedBy: "HTTP/1.1 200 OK").count == 2 && forwarded(channel).isEmpty)
        #expect(!channel.isActive, "closed after the answer")
    }
}

private struct Failure: Error, CustomStringConvertible {
    let description: String
    init(_ d: String) { description = d }
}
