import Foundation
import Hummingbird
import HummingbirdTesting
import NIOCore
import NIOPosix
import Testing
import TileGeometry
import TileStore
@testable import TrailMapServer
import TrailMapTestSupport

/// The tile paths over a raw socket, with the tile loops owning the port and with Hummingbird's
/// pipeline (`TileWire`, `TileFastPath`) owning it: byte-exact responses, pipelined requests
/// mixed with Hummingbird's, HTTP/1.0 and `Connection: close`.
@Suite struct FastPathTests {
    let fixture = ServerFixture()

    func app(_ path: ServingPath) -> LiveApp {
        var config = ServerConfiguration(tilesDirectory: fixture.dir.path)
        config.port = 0
        config.tileLoops = path.tileLoops
        let made = config
        return LiveApp { TileServer.makeApplication(config: made, onRunning: $0) }
    }

    func uri(_ t: TileID) -> String { "/tiles/co/\(t.z)/\(t.x)/\(t.y).png" }

    @Test(arguments: ServingPath.allCases) func pipelinedRequestsAreAnsweredInOrder(path: ServingPath) async throws {
        let a = WebMercator.tile(lon: -105, lat: 39, zoom: 4)
        let b = WebMercator.tile(lon: -105, lat: 39, zoom: 3)
        let missing = WebMercator.tile(lon: -105, lat: 39, zoom: 2)
        try fixture.bundle("co", missing: missing)
        let (pngA, pngB) = (try ServerFixture.png(a), try ServerFixture.png(b))
        let etagA = "\"\(TileHash.id(pngA))\""
        try await app(path).test { client in
            let port = try #require(client.port)
            let requests = [
                "GET \(uri(a)) HTTP/1.1\r\nHost: x\r\n\r\n",
                "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n", // Hummingbird's
                "GET \(uri(b)) HTTP/1.1\r\nHost: x\r\n\r\n",
                "GET \(uri(missing)) HTTP/1.1\r\nHost: x\r\n\r\n",
                "HEAD \(uri(a)) HTTP/1.1\r\nHost: x\r\n\r\n",
                "GET \(uri(a))?v=2 HTTP/1.1\r\nHost: x\r\nIf-None-Match: \(etagA)\r\n\r\n",
                "GET /tiles/co/9/0/0.png HTTP/1.1\r\nHost: x\r\n\r\n", // Hummingbird's 400
                "GET \(uri(b)) HTTP/1.1\r\nHost: x\r\n\r\n"
            ]
            let heads = [false, false, false, false, true, false, false, false]
            let responses = try await RawHTTP.exchange(port: port, requests.joined(), heads: heads)
            #expect(responses.map(\.status) == [200, 200, 200, 404, 200, 304, 400, 200])
            #expect(responses[0].body == pngA && responses[2].body == pngB && responses[7].body == pngB)
            #expect(String(decoding: responses[1].body, as: UTF8.self).contains("\"status\":\"ok\""))
            #expect(String(decoding: responses[3].body, as: UTF8.self).contains("tile_not_found"))
            #expect(String(decoding: responses[6].body, as: UTF8.self).contains("zoom_out_of_range"))
            #expect(responses[4].body.isEmpty && responses[4].headers["content-length"] == String(pngA.count))
            #expect(responses[5].body.isEmpty && responses[5].headers["etag"] == etagA)
            for r in responses {
                #expect(r.headers["server"] == "trailmap")
                let date = try #require(r.headers["date"], "every response has a Date")
                #expect(date.hasSuffix(" GMT") && date.count == 29, "IMF-fixdate: \(date)")
            }
            #expect(responses[0].headers["etag"] == etagA && responses[0].headers["content-type"] == "image/png")
            #expect(responses[0].headers["cache-control"] == "public, max-age=3600")
            #expect(responses[0].headers["access-control-allow-origin"] == "*")
        }
    }

    @Test(arguments: ServingPath.allCases) func http10AndConnectionCloseGetTheirAnswerThenTheConnectionCloses(
        path: ServingPath
    ) async throws {
        let t = WebMercator.tile(lon: -105, lat: 39, zoom: 4)
        try fixture.bundle("co")
        let png = try ServerFixture.png(t)
        try await app(path).test { client in
            let port = try #require(client.port)
            for request in ["GET \(uri(t)) HTTP/1.0\r\n\r\n", "GET \(uri(t)) HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"] {
                // A second request after the close is never answered.
                let responses = try await RawHTTP.exchange(
                    port: port, request + "GET \(uri(t)) HTTP/1.1\r\n\r\n", heads: [false], expectClose: true)
                #expect(responses.map(\.status) == [200] && responses.first?.body == png, "\(request)")
                #expect(responses.first?.headers["connection"] == "close")
            }
            // HTTP/1.0 asking to keep the connection gets two answers on it.
            let kept = "GET \(uri(t)) HTTP/1.0\r\nConnection: keep-alive\r\n\r\n"
            let responses = try await RawHTTP.exchange(port: port, kept + kept, heads: [false, false])
            #expect(responses.map(\.status) == [200, 200] && responses.last?.body == png)
            #expect(responses.first?.headers["connection"] == "keep-alive")
            // The same for Hummingbird's routes.
            let health = try await RawHTTP.exchange(
                port: port, "GET /healthz HTTP/1.0\r\n\r\nGET /healthz HTTP/1.1\r\n\r\n", heads: [false], expectClose: true)
            #expect(health.map(\.status) == [200] && health.first?.headers["connection"] == "close")
            let keptHealth = "GET /healthz HTTP/1.0\r\nConnection: keep-alive\r\n\r\n"
            let both = try await RawHTTP.exchange(
                port: port, keptHealth + "HEAD /healthz HTTP/1.0\r\n\r\n", heads: [false, true], expectClose: true)
            #expect(both.map(\.status) == [200, 200])
            #expect(both.map { $0.headers["connection"] } == ["keep-alive", "close"])
            #expect(String(decoding: both[0].body, as: UTF8.self).contains("\"status\":\"ok\""))
        }
    }

    /// NIO's response encoder pairs each response head it writes with the oldest request method
    /// its decoder told it of, and sends no body for HEAD. Fast-path answers never pass the
    /// encoder, so their methods stayed queued: every tile request grew a per-connection queue,
    /// and after a tile HEAD the next Hummingbird response lost its body. Hummingbird's own HEAD
    /// answers (routed and errors) still carry no body.
    @Test(arguments: ServingPath.allCases) func fastPathAnswersLeaveNothingQueuedInTheEncoder(path: ServingPath) async throws {
        let t = WebMercator.tile(lon: -105, lat: 39, zoom: 4)
        try fixture.bundle("co")
        let png = try ServerFixture.png(t)
        try await app(path).test { client in
            let port = try #require(client.port)
            let requests = [
                "HEAD \(uri(t)) HTTP/1.1\r\nHost: x\r\n\r\n",
                "HEAD \(uri(t)) HTTP/1.1\r\nHost: x\r\n\r\n",
                "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n", // Hummingbird's
                "HEAD /healthz HTTP/1.1\r\nHost: x\r\n\r\n",
                "HEAD /no/such/route HTTP/1.1\r\nHost: x\r\n\r\n",
                "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n",
                "GET \(uri(t)) HTTP/1.1\r\nHost: x\r\n\r\n"
            ]
            let heads = [true, true, false, true, true, false, false]
            let responses = try await RawHTTP.exchange(port: port, requests.joined(), heads: heads)
            #expect(responses.map(\.status) == [200, 200, 200, 200, 404, 200, 200])
            for i in [2, 5] {
                #expect(String(decoding: responses[i].body, as: UTF8.self).contains("\"status\":\"ok\""))
            }
            #expect(responses[6].body == png)
        }
    }

    @Test func theListenerAcceptsManyConnectionsPerWakeUp() async throws {
        let group = MultiThreadedEventLoopGroup.singleton
        let servers = try await [0, 1].asyncMap { _ in
            try await ServerBootstrap(group: group).bind(host: "127.0.0.1", port: 0).get()
        }
        let tuning = ListenerTuning()
        tuning.tune(servers[0])
        tuning.tune(servers[1])
        // setOption runs on the channel's loop: read it back after it has.
        #expect(try await servers[0].getOption(ChannelOptions.maxMessagesPerRead).get() == ListenerTuning.acceptsPerWakeUp)
        #expect(
            try await servers[1].getOption(ChannelOptions.maxMessagesPerRead).get() != ListenerTuning.acceptsPerWakeUp,
            "tuned once, by the first connection")
        for s in servers { try await s.close() }
    }
}

extension Array {
    func asyncMap<T>(_ f: (Element) async throws -> T) async rethrows -> [T] {
        var out: [T] = []
        for e in self { out.append(try await f(e)) }
        return out
    }
}

/// A minimal HTTP/1.1 client on a blocking socket, for byte-level checks.
enum RawHTTP {
    struct Response {
        var status: Int
        var headers: [String: String] // lower-cased names
        var body: [UInt8]
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// `exchange` on a thread of its own: its socket calls block, and on Swift's cooperative
    /// pool (two threads on two cores) they can starve the server's request tasks under test.
    static func exchange(port: Int, _ requests: String, heads: [Bool], expectClose: Bool = false) async throws -> [Response] {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(with: Result { try blockingExchange(port: port, requests, heads: heads, expectClose: expectClose) })
            }
        }
    }

    /// Sends `requests` in one write and reads one response per entry of `heads` (true: the
    /// request was HEAD, so no body). With `expectClose`, also checks that the server closes.
    static func blockingExchange(port: Int, _ requests: String, heads: [Bool], expectClose: Bool = false) throws -> [Response] {
        // A generous timeout: the checks are of bytes, not latency, and while the whole suite runs
        // on two cores the build tests beside it can hold the cooperative pool for seconds.
        let fd = try LoopbackSocket.connect(port: port, readTimeout: 60)
        defer { close(fd) }
        let bytes = Array(requests.utf8)
        guard bytes.withUnsafeBytes({ send(fd, $0.baseAddress, $0.count, 0) }) == bytes.count else {
            throw Failure(description: "short send")
        }
        var input: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        var closed = false
        var responses: [Response] = []
        func fill() throws {
            let n = recv(fd, &chunk, chunk.count, 0)
            guard n >= 0 else {
                throw Failure(
                    description:
                        """
                        recv: errno \(errno) (timeout?) after \(responses.map(\.status)), then \(input.count) bytes: \
                        \(String(decoding: input.prefix(300), as: UTF8.self))
                        """
                )
            }
            if n == 0 { closed = true }
            input += chunk[..<n]
        }
        for head in heads {
            var end: Int?
            while true {
                end = input.firstRange(of: Array("\r\n\r\n".utf8))?.upperBound
                if end != nil || closed { break }
                try fill()
            }
            guard let end else { throw Failure(description: "connection closed after \(responses.count) responses") }
            let (status, headers) = try parseHead(input[..<(end - 4)])
            let length = head || status == 304 ? 0 : Int(headers["content-length"] ?? "0") ?? 0
            while input.count < end + length, !closed { try fill() }
            guard input.count >= end + length else { throw Failure(description: "body cut short") }
            responses.append(Response(status: status, headers: headers, body: Array(input[end..<(end + length)])))
            input.removeFirst(end + length)
        }
        if expectClose {
            while !closed { try fill() }
            guard input.isEmpty else { throw Failure(description: "\(input.count) unexpected bytes before close") }
        }
        return responses
    }

    /// The responses in `input` (everything a connection sent), one per entry of `heads` (true:
    /// the request was HEAD, so no body), with nothing after them.
    static func parse(_ input: [UInt8], heads: [Bool]) throws -> [Response] {
        var at = 0
        var responses: [Response] = []
        for head in heads {
            guard let end = input[at...].firstRange(of: Array("\r\n\r\n".utf8))?.upperBound else {
                throw Failure(description: "input ends after \(responses.map(\.status))")
            }
            let (status, headers) = try parseHead(input[at..<(end - 4)])
            let length = head || status == 304 ? 0 : Int(headers["content-length"] ?? "0") ?? 0
            guard input.count >= end + length else { throw Failure(description: "body cut short") }
            responses.append(Response(status: status, headers: headers, body: Array(input[end..<(end + length)])))
            at = end + length
        }
        guard at == input.count else { throw Failure(description: "\(input.count - at) unexpected bytes after the responses") }
        return responses
    }

    /// A response head (status line and header lines, without the blank line).
    private static func parseHead(_ bytes: ArraySlice<UInt8>) throws -> (status: Int, headers: [String: String]) {
        let lines = String(decoding: bytes, as: UTF8.self).components(separatedBy: "\r\n")
        let statusWords = lines[0].split(separator: " ")
        guard statusWords.count >= 2, statusWords[0] == "HTTP/1.1", let status = Int(statusWords[1]) else {
            throw Failure(description: "bad status line: \(lines[0])")
        }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { throw Failure(description: "bad header: \(line)") }
            let name = line[..<colon].lowercased()
            guard headers[name] == nil else { throw Failure(description: "duplicate header \(name)") }
            headers[name] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return (status, headers)
    }
}
