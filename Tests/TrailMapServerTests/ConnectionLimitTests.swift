import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
@testable import TrailMapServer
import TrailMapTestSupport

/// Hardening round 3: a cap on open connections. Thousands of idle connections neither exhaust
/// the server nor stop it answering; those past the cap get a 503 and are closed at once. One path
/// at a time: thousands of connections at once on both would starve the other suites' servers.
@Suite(.serialized) struct ConnectionLimitTests {
    let fixture = ServerFixture()

    /// Raw sockets to the server, read with poll so thousands are watched at once.
    final class Sockets: @unchecked Sendable {
        var fds: [Int32] = []
        deinit { fds.forEach { close($0) } }

        func open(_ n: Int, port: Int) throws {
            for _ in 0..<n { fds.append(try LoopbackSocket.connect(port: port, readTimeout: 5)) }
        }

        /// The sockets that got a 503 answer by `deadline` (polled until `expected` have, or the deadline).
        func refused(expected: Int, within seconds: Double) -> Set<Int32> {
            var found = Set<Int32>()
            let end = Date().addingTimeInterval(seconds)
            while found.count < expected, Date() < end {
                var polls = fds.filter { !found.contains($0) }.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
                guard poll(&polls, nfds_t(polls.count), 200) > 0 else { continue }
                for p in polls where p.revents != 0 {
                    var buffer = [UInt8](repeating: 0, count: 512)
                    let n = recv(p.fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
                    if n > 0, String(decoding: buffer[..<n], as: UTF8.self).hasPrefix("HTTP/1.1 503") { found.insert(p.fd) }
                }
            }
            return found
        }
    }

    /// One request on a new connection: its status line, or nil when the connection was closed unanswered.
    static func statusLine(port: Int, path: String) throws -> String? {
        let fd = try LoopbackSocket.connect(port: port, readTimeout: 10)
        defer { close(fd) }
        let request = Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".utf8)
        _ = request.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        var buffer = [UInt8](repeating: 0, count: 1024)
        let n = recv(fd, &buffer, buffer.count, 0)
        guard n > 0 else { return nil }
        return String(decoding: buffer[..<n], as: UTF8.self).split(separator: "\r\n").first.map(String.init)
    }

    @Test(arguments: ServingPath.allCases)
    func thousandsOfIdleConnectionsAreCappedAndTheServerKeepsAnswering(path: ServingPath) async throws {
        try fixture.bundle("co")
        var config = ServerConfiguration(tilesDirectory: fixture.dir.path)
        config.port = 0
        config.maxConnections = 2000
        config.tileLoops = path.tileLoops
        let metrics = ServerMetrics()
        let made = config
        try await LiveApp { TileServer.makeApplication(config: made, metrics: metrics, onRunning: $0) }.test { client in
            // No other connection: the test client's own (a connection per request, closed after
            // it) could still hold a place while the sockets open and free it after.
            let port = try #require(client.port)
            let sockets = Sockets()
            try await offThePool { try sockets.open(3000, port: port) }
            let refused = try await offThePool { sockets.refused(expected: 1000, within: 30) }
            #expect(refused.count == 1000, "\(refused.count) refused")
            // Full: a new connection is refused with a JSON 503 too...
            let full = try await offThePool { try Self.statusLine(port: port, path: "/healthz") }
            #expect(full == "HTTP/1.1 503 Service Unavailable", "\(full ?? "closed")")
            // ...and once idle ones leave, new ones are served again.
            let idle = sockets.fds.filter { !refused.contains($0) }
            for fd in idle.prefix(20) { close(fd) }
            sockets.fds.removeAll { idle.prefix(20).contains($0) }
            var served: String?
            for _ in 0..<50 where served != "HTTP/1.1 200 OK" {
                try await Task.sleep(for: .milliseconds(100))
                served = try await offThePool { try Self.statusLine(port: port, path: "/tiles/co/2/0/1.png") }
            }
            #expect(served == "HTTP/1.1 200 OK")
            #expect(String(decoding: metrics.render(), as: UTF8.self).contains("trailmap_connections_refused_total"))
        }
    }
}
