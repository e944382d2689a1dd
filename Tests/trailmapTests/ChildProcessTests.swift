import Foundation
import Testing
import TrailMapTestSupport

/// The tests' own child processes: streams, status, directory, environment, and no descriptor
/// of the test process passed on, however many it holds.
@Suite(.blockingThreads) struct ChildProcessTests {
    /// Runs `script` with bash (through `CLIRunner`, which starts a `ChildProcess`).
    static func bash(
        _ script: String, cwd: String? = nil, environment: [String: String] = [:]
    ) throws -> (out: String, err: String, status: Int32) {
        let r = try CLIRunner.run(["-c", script], executable: "/bin/bash", cwd: cwd, environment: environment)
        return (r.stdout, r.stderr, r.status)
    }

    @Test func streamsStatusDirectoryAndEnvironmentReachTheChild() throws {
        let r = try Self.bash("echo out; echo err >&2; pwd; echo \"$ONLY\"; exit 7", cwd: "/tmp", environment: ["ONLY": "this"])
        #expect(r.out == "out\n/tmp\nthis\n")
        #expect(r.err == "err\n")
        #expect(r.status == 7)
    }

    @Test func aChildStartsAmongThousandsOfDescriptorsAndInheritsNoneOfThem() throws {
        var held: [Int32] = []
        defer { held.forEach { close($0) } }
        for _ in 0..<2000 { held.append(open("/dev/null", O_RDONLY)) }
        #expect(held.allSatisfy { $0 >= 0 })
        // ls lists its own descriptors (bash execs it: no pipeline whose pipes bash would hold).
        let r = try Self.bash("exec ls /proc/self/fd")
        #expect(r.status == 0, "\(r.err)")
        // The three streams and the one ls lists the folder with.
        let listed = r.out.split(whereSeparator: \.isWhitespace).compactMap { Int($0) }
        #expect(listed.contains(2) && listed.allSatisfy { $0 <= 3 }, "\(r.out)")
    }

    @Test func terminateEndsAChildWithTheSignalAsItsStatus() throws {
        let p = ChildProcess()
        p.executableURL = URL(fileURLWithPath: "/bin/sleep")
        p.arguments = ["30"]
        try p.run()
        #expect(p.isRunning)
        p.terminate()
        p.waitUntilExit()
        #expect(!p.isRunning)
        #expect(p.terminationStatus == SIGTERM)
    }

    @Test func aMissingProgramIsAnError() {
        let p = ChildProcess()
        p.executableURL = URL(fileURLWithPath: "/nonexistent/tool")
        #expect(throws: ChildProcess.SpawnError.self) { try p.run() }
    }
}
