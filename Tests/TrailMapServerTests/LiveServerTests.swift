import Foundation
import HTTPTypes
import Logging
import NIOCore
import Testing
import TileGeometry
import TileStore
@testable import TrailMapServer
import TrailMapTestSupport

/// `LiveApp`, the harness the path-parameterised suites run on: its client reaches the socket
/// layer the path names.
@Suite struct LiveServerTests {
    let fixture = ServerFixture()

    @Test(arguments: ServingPath.allCases) func theClientReachesThePathThatOwnsThePort(path: ServingPath) async throws {
        try fixture.bundle("co")
        let log = CapturedLog()
        var config = ServerConfiguration(tilesDirectory: fixture.dir.path)
        config.port = 0
        config.tileLoops = path.tileLoops
        let made = config
        let live = LiveApp { TileServer.makeApplication(config: made, logger: Logger(label: "test") { _ in log }, onRunning: $0) }
        let t = WebMercator.tile(lon: -105, lat: 39, zoom: 4)
        let port = try await live.test { client in
            let r = try await client.execute(uri: "/tiles/co/\(t.z)/\(t.x)/\(t.y).png", method: .get)
            let png = try ServerFixture.png(t)
            #expect(r.status == .ok && Array(buffer: r.body) == png)
            #expect(try await client.execute(uri: "/healthz", method: .get).status == .ok)
            return try #require(client.port)
        }
        // The loops say which port they own; with them off, nothing does.
        let loopLines = log.lines.map(\.message).filter { $0.hasPrefix("tile loops:") }
        #expect(loopLines == (path == .loops ? ["tile loops: 2 threads on port \(port)"] : []), "\(loopLines)")
    }

    /// The bytes each path sends for the same tile requests (each on a connection of its own,
    /// read to its close), with the `Date` line (the clock's, not the path's) left out: equal.
    @Test func bothPathsSendTheSameBytes() async throws {
        let missing = WebMercator.tile(lon: -105, lat: 39, zoom: 3)
        try fixture.bundle("co", missing: missing)
        let t = WebMercator.tile(lon: -105, lat: 39, zoom: 4)
        let uri = "/tiles/co/\(t.z)/\(t.x)/\(t.y).png"
        let etag = "\"\(TileHash.id(try ServerFixture.png(t)))\""
        let requests = [
            "GET \(uri) HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
            "HEAD \(uri) HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
            "GET \(uri)?v=2 HTTP/1.1\r\nHost: x\r\nIf-None-Match: \(etag)\r\nConnection: close\r\n\r\n",
            "GET \(uri) HTTP/1.1\r\nHost: x\r\nIf-None-Match: \"stale\"\r\nConnection: close\r\n\r\n",
            "GET /tiles/co/3/\(missing.x)/\(missing.y).png HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
            "HEAD /tiles/co/3/\(missing.x)/\(missing.y).png HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
            "GET /tiles/co/9/0/0.png HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
            "GET /tiles/co/3/1/1.jpg HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
            "GET /tiles/nope/3/1/1.png HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
            "GET \(uri) HTTP/1.0\r\n\r\n",
            "GET \(uri) HTTP/1.0\r\nConnection: keep-alive\r\n\r\nGET \(uri) HTTP/1.0\r\n\r\n"
        ]
        var sent: [ServingPath: [String]] = [:]
        for path in ServingPath.allCases {
            var config = ServerConfiguration(tilesDirectory: fixture.dir.path)
            config.port = 0
            config.tileLoops = path.tileLoops
            let made = config
            sent[path] = try await LiveApp { TileServer.makeApplication(config: made, onRunning: $0) }.test { client in
                let port = try #require(client.port)
                var answers: [String] = []
                for request in requests { answers.append(try await Self.bytesUntilClose(port: port, request)) }
                return answers
            }
        }
        let loops = try #require(sent[.loops]), nio = try #require(sent[.nio])
        #expect(loops.count == requests.count && nio.count == requests.count)
        for (i, (a, b)) in zip(loops, nio).enumerated() {
            #expect(a == b, "\(requests[i].prefix(60)): loops\n\(a.prefix(400))\nnio\n\(b.prefix(400))")
            #expect(a.hasPrefix("HTTP/1.1 "), "\(a.prefix(40))")
        }
    }

    /// Sends `request` on a new connection and reads until the server closes it; the answer as
    /// text (bodies as Latin-1), without `Date` lines.
    static func bytesUntilClose(port: Int, _ request: String) async throws -> String {
        try await offThePool {
            let fd = try LoopbackSocket.connect(port: port, readTimeout: 60)
            defer { close(fd) }
            let out = Array(request.utf8)
            guard out.withUnsafeBytes({ send(fd, $0.baseAddress, $0.count, 0) }) == out.count else {
                throw LiveClient.Failure(description: "short send")
            }
            var input: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 65536)
            while true {
                let n = recv(fd, &chunk, chunk.count, 0)
                guard n >= 0 else { throw LiveClient.Failure(description: "recv: errno \(errno) after \(input.count) bytes") }
                if n == 0 { break }
                input += chunk[..<n]
            }
            let text = String(input.map { Character(Unicode.Scalar($0)) })
            return text.components(separatedBy: "\r\n").filter { !$0.hasPrefix("Date: ") }.joined(separator: "\r\n")
        }
    }
}
