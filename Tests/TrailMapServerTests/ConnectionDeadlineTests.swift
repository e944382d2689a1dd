import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
import TileGeometry
@testable import TrailMapServer
import TrailMapTestSupport

/// Hardening, finding 7: a half-sent or trickled request, and an idle keep-alive connection, are
/// closed after their configured time instead of holding the connection forever. One case at a
/// time: the times they measure are of a loaded machine already.
@Suite(.serialized) struct ConnectionDeadlineTests {
    let fixture = ServerFixture()

    /// The server with these deadlines, `path` owning its port.
    func app(_ path: ServingPath, request: Duration, idle: Duration) -> LiveApp {
        var config = ServerConfiguration(tilesDirectory: fixture.dir.path)
        config.port = 0
        config.tileLoops = path.tileLoops
        config.requestTimeout = request
        config.idleTimeout = idle
        let made = config
        return LiveApp { TileServer.makeApplication(config: made, onRunning: $0) }
    }

    /// A blocking client socket on 127.0.0.1 that reads with a 60 s timeout, on a thread of its
    /// own: a read blocking one of the shared pool's two threads starves the servers under test.
    final class Client: @unchecked Sendable {
        let fd: Int32

        init(port: Int) throws {
            fd = try LoopbackSocket.connect(port: port, readTimeout: 60)
        }

        deinit { close(fd) }

        /// False when the server has closed the connection.
        @discardableResult func send(_ text: String) -> Bool {
            let bytes = Array(text.utf8)
            return bytes.withUnsafeBytes { Foundation.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } == bytes.count
        }

        /// Reads until `marker` is in the input (returns the input) or the server closes (nil),
        /// or the 60 s timeout passes (throws).
        func read(until marker: String? = nil) async throws -> String? {
            try await offThePool { try self.blockingRead(until: marker) }
        }

        /// Sends `text`, then times until the server closes the connection, from just before the
        /// send, or from finding `marker` in the input (nil input: it closed before that). Timed
        /// on the reading thread: a pool that resumes the test late (both threads busy with other
        /// suites) does not count.
        func secondsUntilClose(sending text: String, after marker: String? = nil) async throws -> (input: String?, seconds: Double) {
            try await offThePool {
                var start = Date()
                self.send(text)
                var input: String?
                if let marker {
                    input = try self.blockingRead(until: marker)
                    guard input != nil else { return (nil, 0) }
                    start = Date()
                }
                _ = try self.blockingRead(until: nil)
                return (input, Date().timeIntervalSince(start))
            }
        }

        private func blockingRead(until marker: String?) throws -> String? {
            var input: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 65536)
            while true {
                if let marker, String(decoding: input, as: UTF8.self).contains(marker) { return String(decoding: input, as: UTF8.self) }
                let n = recv(fd, &chunk, chunk.count, 0)
                if n == 0 || (n < 0 && errno == ECONNRESET) { return marker == nil ? String(decoding: input, as: UTF8.self) : nil }
                guard n > 0 else { throw CocoaError(.fileReadUnknown, userInfo: ["reason": "no close within 60 s (errno \(errno))"]) }
                input += chunk[..<n]
            }
        }
    }

    // Hardening finding 7 (docs/notes/hardening.md).
    @Test(arguments: ServingPath.allCases) func aHalfSentRequestIsClosedAfterTheRequestTimeout(path: ServingPath) async throws {
        try fixture.bundle("co")
        try await app(path, request: .seconds(1), idle: .seconds(30)).test { client in
            let c = try Client(port: try #require(client.port))
            let waited = try await c.secondsUntilClose(sending: "GET /tiles/co/4/3/6.png HTTP/1.1\r\nHo").seconds
            #expect(waited >= 0.8 && waited < 10, "closed after \(waited) s")
        }
    }

    // Hardening finding 7 (docs/notes/hardening.md).
    @Test(arguments: ServingPath.allCases) func aTrickledRequestIsClosedEvenWhileBytesKeepComing(path: ServingPath) async throws {
        try fixture.bundle("co")
        try await app(path, request: .seconds(1), idle: .seconds(30)).test { client in
            let c = try Client(port: try #require(client.port))
            let request = Array("GET /tiles/co/4/3/6.png HTTP/1.1\r\nX-Slow: " + String(repeating: "a", count: 150))
            var sent = 0
            // One byte every 100 ms (15 s in all): never idle, never done. The server must close
            // the connection about a second in, long before the request could be complete; the
            // count of bytes it took says so whatever the machine's load does to the timing.
            for byte in request {
                try await Task.sleep(for: .milliseconds(100))
                guard c.send(String(byte)) else { break }
                sent += 1
            }
            if sent == request.count { _ = try await c.read() }
            #expect(sent < request.count / 2, "the server took \(sent) of \(request.count) trickled bytes before closing")
        }
    }

    /// A connection that sits idle first and then trickles: the request deadline starts with the
    /// first byte, not when the idle clock would next be looked at.
    // Hardening finding 7 (docs/notes/hardening.md).
    @Test(arguments: ServingPath.allCases) func aTrickleAfterAQuietStartIsClosedOnTime(path: ServingPath) async throws {
        try fixture.bundle("co")
        try await app(path, request: .seconds(1), idle: .seconds(30)).test { client in
            let c = try Client(port: try #require(client.port))
            try await Task.sleep(for: .milliseconds(1500))
            let request = Array("GET /tiles/co/4/3/6.png HTTP/1.1\r\nX-Slow: " + String(repeating: "a", count: 150))
            var sent = 0
            for byte in request {
                guard c.send(String(byte)) else { break }
                sent += 1
                try await Task.sleep(for: .milliseconds(100))
            }
            if sent == request.count { _ = try await c.read() }
            #expect(sent < request.count / 2, "closed after \(sent) of \(request.count) bytes, counted from the first")
        }
    }

    // Hardening finding 7 (docs/notes/hardening.md).
    @Test(arguments: ServingPath.allCases) func anIdleKeepAliveConnectionIsClosedAfterTheIdleTimeout(path: ServingPath) async throws {
        try fixture.bundle("co")
        let t = WebMercator.tile(lon: -105, lat: 39, zoom: 4)
        try await app(path, request: .seconds(30), idle: .seconds(1)).test { client in
            let c = try Client(port: try #require(client.port))
            // From the response's head to the close, on the reading thread.
            let (head, waited) = try await c.secondsUntilClose(
                sending: "GET /tiles/co/\(t.z)/\(t.x)/\(t.y).png HTTP/1.1\r\nHost: x\r\n\r\n",
                after: "\r\n\r\n")
            #expect(try #require(head, "closed before answering").hasPrefix("HTTP/1.1 200"))
            #expect(waited >= 0.5 && waited < 10, "closed after \(waited) s idle")
        }
    }

    // Hardening finding 7 (docs/notes/hardening.md).
    @Test(arguments: ServingPath.allCases) func aSlowButTimelyRequestIsAnswered(path: ServingPath) async throws {
        try fixture.bundle("co")
        // Deadlines far beyond the pauses: on a loaded machine a 700 ms sleep of the test can take seconds.
        try await app(path, request: .seconds(120), idle: .seconds(120)).test { client in
            let c = try Client(port: try #require(client.port))
            // Three requests on one connection, each sent in two parts 500 ms apart (an API route too).
            for path in ["/healthz", "/tiles/co.json", "/api/v1/openapi.json"] {
                c.send("GET \(path) HTTP/1.1\r\nHo")
                try await Task.sleep(for: .milliseconds(500))
                c.send("st: x\r\n\r\n")
                let head = try #require(try await c.read(until: "\r\n\r\n"), "\(path) answered")
                #expect(head.hasPrefix("HTTP/1.1 200") || head.hasPrefix("HTTP/1.1 404"), "\(path): \(head.prefix(40))")
                try await Task.sleep(for: .milliseconds(700))
            }
        }
    }
}
