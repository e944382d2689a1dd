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

    @Test func passedDescriptorsBecomeThreeAndFourAndNothingElseIsInherited() throws {
        var commands: [Int32] = [0, 0], answers: [Int32] = [0, 0]
        #expect(pipe(&commands) == 0 && pipe(&answers) == 0)
        // Above 4 and close-on-exec, as a caller must hand them over.
        let ends = (commands + answers).map { fd in
            let copy = fcntl(fd, F_DUPFD_CLOEXEC, 10)
            close(fd)
            return copy
        }
        defer { [ends[1], ends[2]].forEach { close($0) } }
        let extra = open("/dev/null", O_RDONLY)
        defer { close(extra) }
        let p = ChildProcess()
        p.executableURL = URL(fileURLWithPath: "/bin/bash")
        // Reads a line on 3, answers it on 4 with the descriptors the shell was started with.
        p.arguments = ["-c", "read -r line <&3; echo \"$line $(ls /proc/$$/fd | sort -n | tr '\\n' ' ')\" >&4"]
        p.passedDescriptors = [ends[0], ends[3]]
        try p.run()
        close(ends[0])
        close(ends[3])
        _ = "ping\n".withCString { write(ends[1], $0, 5) }
        let answer = FileHandle(fileDescriptor: ends[2], closeOnDealloc: false).readDataToEndOfFile()
        p.waitUntilExit()
        #expect(p.terminationStatus == 0)
        let words = String(decoding: answer, as: UTF8.self).split(whereSeparator: \.isWhitespace)
        #expect(words.first == "ping")
        // The three streams and 3 and 4; bash's own (255 and the like) may come after, not `extra`.
        let fds = words.dropFirst().compactMap { Int32($0) }
        #expect(Array(fds.prefix(5)) == [0, 1, 2, 3, 4], "\(words)")
        #expect(!fds.contains(extra) || extra == 255, "\(words)")

        let low = ChildProcess()
        low.executableURL = URL(fileURLWithPath: "/bin/true")
        low.passedDescriptors = [0]
        #expect(throws: ChildProcess.SpawnError.self) { try low.run() }
    }

    @Test func aMissingProgramIsAnError() {
        let p = ChildProcess()
        p.executableURL = URL(fileURLWithPath: "/nonexistent/tool")
        #expect(throws: ChildProcess.SpawnError.self) { try p.run() }
    }
}
