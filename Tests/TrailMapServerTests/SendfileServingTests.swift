import Foundation
import Hummingbird
import Testing
import TileGeometry
import TileStore
@testable import TrailMapServer
import TrailMapTestSupport

/// Large tiles sent by the tile loops with `sendfile` from sealed copies
/// (`ServerConfiguration.sendfileBudget`, `TileFiles`), over a real socket: every answer whole and
/// byte-identical, to a reader that takes it at once and to one whose small window leaves the
/// kernel taking a body in parts; with no budget, no copies.
@Suite struct SendfileServingTests {
    let fixture = ServerFixture()
    typealias Raw = RawTileServerTests

    /// The tile loops' file counters from `/metrics`: bodies sent from copies, copies held.
    static func fileCounters(port: Int) async throws -> (sends: Int, copies: Int, bytes: Int) {
        let value = try await Raw.metrics(port: port)
        return (value("trailmap_tile_file_sends_total"), value("trailmap_tile_files"), value("trailmap_tile_files_bytes"))
    }

    /// Every tile loop thread blocks SIGPIPE (`sendfile` cannot be told not to raise it) and
    /// SIGXFSZ (a sealed copy's write past a file size limit raises it), read
    /// from the kernel's view of the process's threads while a server runs.
    @Test func tileLoopThreadsBlockSIGPIPEAndSIGXFSZ() async throws {
        try TestBundle.write(
            [(tile: TileID(z: 3, x: 1, y: 3)!, data: try Raw.incompressible(300))], to: fixture.dir.file("pipe.mbtiles"),
            metadata: BundleMetadata(name: "pipe", bounds: ServerFixture.box, minZoom: 3, maxZoom: 3))
        var config = ServerConfiguration(tilesDirectory: fixture.dir.path)
        config.port = 0
        config.tileLoops = 2
        let made = config
        try await Raw.serving({ TileServer.makeApplication(config: made, onRunning: $0) }) { _ in
            // A loop thread takes its name after blocking the signal; a thread not named yet is
            // looked for again (a loaded machine may not have run it).
            var masks: [String: UInt64] = [:]
            let deadline = ContinuousClock.now + .seconds(10)
            while masks.count < 2, ContinuousClock.now < deadline {
                for task in try FileManager.default.contentsOfDirectory(atPath: "/proc/self/task") {
                    guard let name = try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8),
                        name.trimmingCharacters(in: .whitespacesAndNewlines) == "trailmap-tiles",
                        let status = try? String(contentsOfFile: "/proc/self/task/\(task)/status", encoding: .utf8),
                        let line = status.split(separator: "\n").first(where: { $0.hasPrefix("SigBlk:") }),
                        let mask = UInt64(line.dropFirst("SigBlk:".count).trimmingCharacters(in: .whitespaces), radix: 16)
                    else { continue }
                    masks[task] = mask
                }
                if masks.count < 2 { try await Task.sleep(for: .milliseconds(20)) }
            }
            #expect(masks.count >= 2)
            for (task, mask) in masks {
                #expect(mask & (1 << (UInt64(SIGPIPE) - 1)) != 0, "thread \(task) does not block SIGPIPE")
                #expect(mask & (1 << (UInt64(SIGXFSZ) - 1)) != 0, "thread \(task) does not block SIGXFSZ")
            }
        }
    }

    @Test(arguments: [0, 16 << 20]) func largeTilesComeOutWholeToFastAndSlowReaders(budget: Int) async throws {
        let a = TileID(z: 3, x: 1, y: 3)!, b = TileID(z: 3, x: 1, y: 2)!, small = TileID(z: 3, x: 2, y: 3)!
        let bytesA = try Raw.incompressible(3 << 20), bytesB = try Raw.incompressible(40_000), bytesSmall = try Raw.incompressible(300)
        try TestBundle.write(
            [(tile: a, data: bytesA), (tile: b, data: bytesB), (tile: small, data: bytesSmall)], to: fixture.dir.file("big.mbtiles"),
            metadata: BundleMetadata(name: "big", bounds: ServerFixture.box, minZoom: 3, maxZoom: 3))
        var config = ServerConfiguration(tilesDirectory: fixture.dir.path)
        config.port = 0
        config.tileLoops = 2
        config.sendfileBudget = budget
        let made = config
        let uriA = Raw.uri(a, "big"), uriB = Raw.uri(b, "big"), uriSmall = Raw.uri(small, "big")
        try await Raw.serving({ TileServer.makeApplication(config: made, onRunning: $0) }) { port in
            // Asked at once, on one connection (so one loop): the second ask of each makes its copy.
            let requests =
                [uriA, uriA, uriB, uriB, uriSmall, uriA].map { Raw.get($0) }.joined() + "HEAD \(uriA) HTTP/1.1\r\nHost: x\r\n\r\n"
            let fast = try await RawHTTP.exchange(port: port, requests, heads: [false, false, false, false, false, false, true])
            #expect(fast.map(\.status) == [200, 200, 200, 200, 200, 200, 200])
            #expect([0, 1, 5].allSatisfy { fast[$0].body == bytesA } && fast[2].body == bytesB && fast[3].body == bytesB)
            #expect(fast[4].body == bytesSmall && fast[6].body.isEmpty && fast[6].headers["content-length"] == String(bytesA.count))
            let afterFast = try await Self.fileCounters(port: port)
            if budget > 0 {
                // A's second and third asks and B's second are sent from copies (counted when
                // the socket took some of the file: a full socket leaves a body to the buffer).
                #expect(afterFast.sends >= 1)
                #expect(afterFast.copies >= 2 && afterFast.bytes >= bytesA.count + bytesB.count)
            } else {
                #expect(afterFast.sends == 0 && afterFast.copies == 0 && afterFast.bytes == 0)
            }
            // A reader with a 4 KB window, reading 8 KB at a time with pauses: A is more than the
            // socket takes at once, so it goes out in parts, the rest from the buffer once the
            // socket drains.
            let paths = [uriA, uriB, uriA, uriB, uriA]
            let input = try await offThePool {
                let fd = try LoopbackSocket.connect(port: port, readTimeout: 30, receiveBuffer: 4096)
                defer { close(fd) }
                let text = Array((paths.map { Raw.get($0) }.joined() + Raw.get(uriSmall, "Connection: close\r\n")).utf8)
                guard text.withUnsafeBytes({ Foundation.send(fd, $0.baseAddress, $0.count, 0) }) == text.count else {
                    throw RawHTTP.Failure(description: "short send")
                }
                var input: [UInt8] = []
                var chunk = [UInt8](repeating: 0, count: 8192)
                while true {
                    let n = recv(fd, &chunk, chunk.count, 0)
                    guard n >= 0 else { throw RawHTTP.Failure(description: "recv: errno \(errno) after \(input.count) bytes") }
                    if n == 0 { break }
                    input += chunk[..<n]
                    usleep(500)
                }
                return input
            }
            let slow = try RawHTTP.parse(input, heads: [false, false, false, false, false, false])
            #expect(slow.map(\.status) == [200, 200, 200, 200, 200, 200])
            for (i, path) in paths.enumerated() {
                let expected = path == uriA ? bytesA : bytesB
                #expect(slow[i].body == expected, "answer \(i): \(slow[i].body.count) of \(expected.count) bytes")
            }
            #expect(slow[5].body == bytesSmall && slow[5].headers["connection"] == "close")
            let afterSlow = try await Self.fileCounters(port: port)
            if budget > 0 {
                #expect(afterSlow.copies >= 2 && afterSlow.bytes <= budget)
            } else {
                #expect(afterSlow.sends == 0 && afterSlow.copies == 0)
            }
        }
    }
}
