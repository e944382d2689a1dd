import Foundation
import Synchronization
import Testing
import TrailMapTestSupport

/// The tests' own child processes: streams, status, directory, environment, and no descriptor
/// of the test process passed on, however many it holds.
@Suite(.blockingThreads) struct ChildProcessTests {
    /// Runs `script` with bash; its stdout, stderr and exit status.
    static func bash(
        _ script: String, cwd: String? = nil, environment: [String: String]? = nil
    ) throws -> (out: String, err: String, status: Int32) {
        let p = ChildProcess()
        p.executableURL = URL(fileURLWithPath: "/bin/bash")
        p.arguments = ["-c", script]
        p.environment = environment
        p.currentDirectoryURL = cwd.map { URL(fileURLWithPath: $0) }
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        let errData = Mutex(Data())
        let reader = Thread { errData.withLock { $0 = err.fileHandleForReading.readDataToEndOfFile() } }
        reader.start()
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        while errData.withLock({ $0.isEmpty }) && !reader.isFinished { usleep(1000) }
        return (String(decoding: outData, as: UTF8.self), String(decoding: errData.withLock { $0 }, as: UTF8.self), p.terminationStatus)
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
        let r = try Self.bash("ls /proc/$$/fd | sort -n | tr '\\n' ' '")
        #expect(r.status == 0, "\(r.err)")
        // bash's own: the three streams and the one it lists the folder with.
        #expect(r.out.split(separator: " ").compactMap { Int($0) }.allSatisfy { $0 <= 3 }, "\(r.out)")
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
