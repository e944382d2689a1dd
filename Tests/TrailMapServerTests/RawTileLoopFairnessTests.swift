import Foundation
import Hummingbird
import Synchronization
import Testing
import TileGeometry
@testable import TrailMapServer
import TrailMapTestSupport

/// A tile loop shares itself among its connections: one client pipelining requests without
/// pause (and reading every answer at once, so the socket always takes them) does not keep the
/// loop from another connection.
@Suite struct RawTileLoopFairnessTests {
    let fixture = ServerFixture()

    /// The server of the fixture's folder with one tile loop.
    func oneLoop() -> (@escaping @Sendable (Int) async -> Void) throws -> Application<TileResponder> {
        var config = ServerConfiguration(tilesDirectory: fixture.dir.path)
        config.port = 0
        config.tileLoops = 1
        let made = config
        return { TileServer.makeApplication(config: made, onRunning: $0) }
    }

    /// One loop; a flood connection writes pipelined `HEAD` requests (small answers the socket
    /// always takes) from one thread and reads the answers from another, for up to 20 s. Once the
    /// answers flow, a second connection asks for a tile: it must be answered while the flood
    /// still runs. A loop that read the flood until a short read never came back to it.
    @Test func aClientPipeliningWithoutPauseDoesNotHoldTheLoop() async throws {
        try fixture.bundle("co")
        let tile = TileID(z: 3, x: 1, y: 3)!
        let uri = RawTileServerTests.uri(tile)
        let expected = try ServerFixture.png(tile)
        try await RawTileServerTests.serving(oneLoop()) { port in
            // Cached first: a tile the loop has not cached hands its connection to Hummingbird.
            let warm = try await RawHTTP.exchange(port: port, RawTileServerTests.get(uri), heads: [false])
            #expect(warm.map(\.status) == [200])
            let flood = try LoopbackSocket.connect(port: port, readTimeout: 30, receiveBuffer: 4 << 20)
            let stop = Atomic(false), writing = Atomic(true)
            let received = Atomic(0)
            let writer = DispatchSemaphore(value: 0), reader = DispatchSemaphore(value: 0)
            let block = Array(String(repeating: "HEAD \(uri) HTTP/1.1\r\nHost: x\r\n\r\n", count: 2000).utf8)
            Thread {
                defer {
                    writing.store(false, ordering: .relaxed)
                    writer.signal()
                }
                let started = Date()
                while !stop.load(ordering: .relaxed), Date().timeIntervalSince(started) < 20 {
                    guard block.withUnsafeBytes({ Foundation.send(flood, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) > 0 else {
                        return
                    }
                }
            }.start()
            Thread {
                defer { reader.signal() }
                var chunk = [UInt8](repeating: 0, count: 1 << 16)
                while true {
                    let n = recv(flood, &chunk, chunk.count, 0)
                    if n <= 0 { return }
                    received.add(n, ordering: .relaxed)
                }
            }.start()
            defer {
                stop.store(true, ordering: .relaxed)
                shutdown(flood, Int32(SHUT_RDWR))
                writer.wait()
                reader.wait()
                close(flood)
            }
            // The flood's answers flow: the loop is reading it.
            let deadline = Date().addingTimeInterval(15)
            while received.load(ordering: .relaxed) < 1 << 20, Date() < deadline { try await Task.sleep(for: .milliseconds(10)) }
            #expect(received.load(ordering: .relaxed) >= 1 << 20, "the flood got no answers")
            let answer = try await offThePool {
                try RawHTTP.blockingExchange(
                    port: port, RawTileServerTests.get(uri, "Connection: close\r\n"), heads: [false], expectClose: true)
            }
            let flooding = writing.load(ordering: .relaxed)
            #expect(answer.map(\.status) == [200])
            #expect(answer.first?.body == expected)
            #expect(flooding, "the flood ended before the other connection was answered")
        }
    }

    /// Far more pipelined requests than a connection gets answered in one turn of its loop
    /// (`answersPerTurn`), in one write, mixed (GET, HEAD, a 304, a 404), with a request for
    /// Hummingbird last: every answer comes, in order, then Hummingbird's.
    @Test func requestsBeyondATurnAreAnsweredInOrder() async throws {
        let absent = TileID(z: 4, x: 3, y: 6)!
        try fixture.bundle("co", missing: absent)
        let tile = TileID(z: 3, x: 1, y: 3)!, other = TileID(z: 4, x: 3, y: 5)!
        try await RawTileServerTests.serving(oneLoop()) { port in
            let warm = try await RawHTTP.exchange(
                port: port, RawTileServerTests.get(RawTileServerTests.uri(tile)) + RawTileServerTests.get(RawTileServerTests.uri(other)),
                heads: [false, false])
            #expect(warm.map(\.status) == [200, 200])
            let etag = try #require(warm[0].headers["etag"])
            let count = RawTileLoop.answersPerTurn * 5 + 7
            var text = "", heads: [Bool] = [], statuses: [Int] = []
            for i in 0..<count {
                switch i % 4 {
                case 0: text += RawTileServerTests.get(RawTileServerTests.uri(tile)); heads.append(false); statuses.append(200)
                case 1:
                    text += "HEAD \(RawTileServerTests.uri(other)) HTTP/1.1\r\nHost: x\r\n\r\n"; heads.append(true); statuses.append(200)
                case 2:
                    text += RawTileServerTests.get(RawTileServerTests.uri(tile), "If-None-Match: \(etag)\r\n"); heads.append(false);
                    statuses.append(304)
                default: text += RawTileServerTests.get(RawTileServerTests.uri(absent)); heads.append(false); statuses.append(404)
                }
            }
            text += RawTileServerTests.get("/healthz", "Connection: close\r\n")
            let answers = try await RawHTTP.exchange(port: port, text, heads: heads + [false], expectClose: true)
            #expect(answers.map(\.status) == statuses + [200])
            for (i, answer) in answers.dropLast().enumerated() where i % 4 == 0 {
                #expect(answer.body == warm[0].body, "answer \(i)")
            }
            #expect(String(decoding: try #require(answers.last).body, as: UTF8.self).contains("\"status\""))
        }
    }

    /// A client that pipelines many requests in one write (far more than a turn answers) and
    /// shuts down its side a moment later, while most of them still wait: every request is
    /// answered before the connection ends. The end of input is an edge of its own; taken for a
    /// cue to read, it found the end and closed the connection with requests still waiting.
    @Test func requestsBeforeTheClientsEndAreAllAnswered() async throws {
        try fixture.bundle("co")
        let uri = RawTileServerTests.uri(TileID(z: 3, x: 1, y: 3)!)
        try await RawTileServerTests.serving(oneLoop()) { port in
            let warm = try await RawHTTP.exchange(port: port, RawTileServerTests.get(uri), heads: [false])
            #expect(warm.map(\.status) == [200])
            let count = 1000
            let input = try await offThePool {
                let fd = try LoopbackSocket.connect(port: port, readTimeout: 60)
                defer { close(fd) }
                let text = Array(String(repeating: "HEAD \(uri) HTTP/1.1\r\nHost: x\r\n\r\n", count: count).utf8)
                guard text.withUnsafeBytes({ Foundation.send(fd, $0.baseAddress, $0.count, 0) }) == text.count else {
                    throw RawHTTP.Failure(description: "short send")
                }
                usleep(5000)
                shutdown(fd, Int32(SHUT_WR))
                var input: [UInt8] = []
                var chunk = [UInt8](repeating: 0, count: 65536)
                while true {
                    let n = recv(fd, &chunk, chunk.count, 0)
                    guard n >= 0 else { throw RawHTTP.Failure(description: "recv: errno \(errno) after \(input.count) bytes") }
                    if n == 0 { return input }
                    input += chunk[..<n]
                }
            }
            let answers = try RawHTTP.parse(input, heads: Array(repeating: true, count: count))
            #expect(answers.count == count && answers.allSatisfy { $0.status == 200 })
        }
    }
}
