import Foundation
import Testing
import TrailMapTestSupport

/// `trailmap serve --tile-loops`: one loop per processor unless told; 0 turns them off;
/// out-of-range values are refused with a message naming the option.
@Suite(.blockingThreads) struct ServeTileLoopsOptionTests {
    @Test func badThreadCountsAreRefused() throws {
        let dir = TemporaryDirectory()
        for value in ["-1", "257", "many"] {
            let r = try CLIRunner.run(["serve", "--tiles", dir.path, "--port", "0", "--tile-loops", value])
            #expect(r.status != 0 && r.stderr.contains("--tile-loops"), "\(value): \(r.status) \(r.stderr)")
        }
    }

    @Test func badSendfileBudgetsAreRefused() throws {
        let dir = TemporaryDirectory()
        for value in ["-1", "lots", "12T", "1e400", ""] {
            // A server that starts instead ends with timeout's 124.
            let r = try CLIRunner.run(
                ["30", CLIRunner.binary, "serve", "--tiles", dir.path, "--port", "0", "--sendfile-budget=\(value)"],
                executable: "/usr/bin/timeout")
            #expect(r.status == 64 && r.stderr.contains("--sendfile-budget"), "\(value): \(r.status) \(r.stderr)")
        }
    }

    /// What a server started with `extra` logged until it was serving, then stopped.
    func logOfServer(_ extra: [String]) throws -> String {
        let dir = TemporaryDirectory()
        let (p, out, err) = try CLIRunner.start(["serve", "--tiles", dir.path, "--port", "0", "--log-level", "info"] + extra)
        let line = String(decoding: out.fileHandleForReading.availableData, as: UTF8.self)
        p.terminate()
        p.waitUntilExit()
        #expect(line.contains("serving"), "\(line)")
        return String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    }

    @Test func oneLoopPerProcessorByDefaultAndNoneWithZero() throws {
        let processors = ProcessInfo.processInfo.activeProcessorCount
        let log = try logOfServer([])
        #expect(log.contains("tile loops: \(processors) threads"), "\(log)")
        #expect(try logOfServer(["--tile-loops", "3"]).contains("tile loops: 3 threads"))
        let off = try logOfServer(["--tile-loops", "0"])
        #expect(!off.contains("tile loops"), "\(off)")
    }

    @Test func helpNamesTheDefaultOnce() throws {
        let r = try CLIRunner.run(["serve", "--help"])
        let help = r.stdout.replacingOccurrences(of: "\n", with: " ").split(separator: " ", omittingEmptySubsequences: true).joined(
            separator: " ")
        let option = try #require(help.range(of: "--tile-loops"))
        let text = help[option.upperBound...].prefix(400)
        #expect(text.contains("0: off"), "\(text)")
        #expect(help.components(separatedBy: "one per processor").count == 2, "\(text)")
        #expect(!text.prefix(while: { $0 != "-" }).contains("(default: 0)"))
    }
}
