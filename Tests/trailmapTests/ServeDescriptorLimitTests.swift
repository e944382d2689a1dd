import Foundation
import Testing
import TileGeometry
import TileStore
import TrailMapTestSupport

/// `trailmap serve` out of file descriptors: its tile loops stop accepting for a moment instead of
/// waking again and again for a connection they cannot take, and accept again once descriptors
/// are free. The server runs under `ulimit -n 128`; the test holds 200 connections open.
@Suite(.blockingThreads) struct ServeDescriptorLimitTests {
    /// CPU time (user + system) of process `pid`, in clock ticks.
    static func cpuTicks(_ pid: Int32) throws -> Int {
        let stat = try String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)
        let fields = stat[stat.index(after: try #require(stat.lastIndex(of: ")")))...].split(separator: " ")
        return (Int(fields[11]) ?? 0) + (Int(fields[12]) ?? 0)
    }

    @Test func loopsPauseAcceptingWhenOutOfDescriptors() throws {
        let dir = TemporaryDirectory()
        let tile = try #require(TileID(z: 0, x: 0, y: 0))
        _ = try TestBundle.write(
            [(tile, [1, 2, 3] as [UInt8])], to: dir.file("world.mbtiles"),
            metadata: BundleMetadata(name: "world", bounds: .world, minZoom: 0, maxZoom: 0))
        let (p, out, _) = try CLIRunner.start(
            executable: "/bin/sh",
            [
                "-c", "ulimit -n 128 && exec \"$0\" \"$@\"", CLIRunner.binary, "serve", "--tiles", dir.path, "--port", "0", "--tile-loops",
                "2"
            ])
        defer {
            p.terminate()
            p.waitUntilExit()
        }
        var text = ""
        while !text.contains("http://") {
            let data = out.fileHandleForReading.availableData
            guard !data.isEmpty else { break }
            text += String(decoding: data, as: UTF8.self)
        }
        let port = try #require(
            text.split(separator: ":").last.flatMap { Int($0.prefix { $0.isNumber }) }, "no URL in \(text)")
        // More connections than descriptors: they wait in the listening socket's backlog.
        var held: [Int32] = []
        defer { for fd in held { close(fd) } }
        for _ in 0..<200 { held.append(try LoopbackSocket.connect(port: port, readTimeout: 5)) }
        Thread.sleep(forTimeInterval: 0.5)
        let before = try Self.cpuTicks(p.processIdentifier)
        Thread.sleep(forTimeInterval: 2)
        let spent = Double(try Self.cpuTicks(p.processIdentifier) - before) / Double(sysconf(Int32(_SC_CLK_TCK)))
        // Waking for every pending connection keeps both loops busy (over 2 s of CPU in 2 s);
        // pausing, they wake ten times a second.
        #expect(spent < 0.5, "the server spent \(spent) s of CPU in 2 s with connections it cannot accept")
        for fd in held { close(fd) }
        held = []
        // Descriptors free again: a new connection is accepted and answered, and the pauses counted.
        let url = "http://127.0.0.1:\(port)"
        let tileAnswer = try StorePageAssetCLITests.get(url + "/tiles/world/0/0/0.png")
        #expect(tileAnswer.head.hasPrefix("HTTP/1.1 200"), "\(tileAnswer.head) \(tileAnswer.body)")
        let metrics = try StorePageAssetCLITests.get(url + "/metrics").body
        let pauses = metrics.split(separator: "\n").first { $0.hasPrefix("trailmap_tile_loop_accept_pauses_total ") }
        #expect((pauses.flatMap { Double($0.split(separator: " ").last ?? "") } ?? 0) >= 1, "\(pauses ?? "none")")
    }
}
