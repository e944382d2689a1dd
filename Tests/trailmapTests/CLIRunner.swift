import Foundation
import TrailMapTestSupport

/// Runs the built `trailmap` binary (next to the test bundle) and captures its output.
struct CLIRunner {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    static var binary: String {
        if let env = ProcessInfo.processInfo.environment["TRAILMAP_BIN"] { return env }
        let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        return URL(fileURLWithPath: exe).deletingLastPathComponent().appendingPathComponent("trailmap").path
    }

    /// The folder the binary runs in unless a test names one: empty, so what the binary finds by
    /// default (the catalog `Catalog/catalog.sqlite`, the `Tiles` folder) is never the checkout's
    /// own, made by running `scripts/run.sh` there.
    static let emptyFolder = TemporaryDirectory()

    /// Starts the binary without waiting.
    static func start(_ args: [String], cwd: String? = nil) throws -> (ChildProcess, Pipe, Pipe) {
        try start(executable: binary, args, cwd: cwd)
    }

    /// Starts `executable` (in `cwd`; the binary by default in `emptyFolder`); `environment` is
    /// added to this process's.
    static func start(
        executable: String, _ args: [String], cwd: String? = nil,
        environment: [String: String] = [:]
    ) throws -> (ChildProcess, Pipe, Pipe) {
        let p = ChildProcess()
        p.executableURL = URL(fileURLWithPath: executable)
        p.arguments = args
        if !environment.isEmpty {
            p.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        }
        if let cwd = cwd ?? (executable == binary ? emptyFolder.path : nil) { p.currentDirectoryURL = URL(fileURLWithPath: cwd) }
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        return (p, out, err)
    }

    /// Runs to completion.
    static func run(
        _ args: [String], executable: String? = nil, cwd: String? = nil,
        environment: [String: String] = [:]
    ) throws -> Result {
        let (p, out, err) = try start(executable: executable ?? binary, args, cwd: cwd, environment: environment)
        // Read both pipes before waiting so a chatty child never blocks on a full pipe.
        let group = DispatchGroup()
        nonisolated(unsafe) var outData = Data(), errData = Data()
        group.enter()
        DispatchQueue.global().async {
            outData = out.fileHandleForReading.readDataToEndOfFile(); group.leave()
        }
        group.enter()
        DispatchQueue.global().async {
            errData = err.fileHandleForReading.readDataToEndOfFile(); group.leave()
        }
        group.wait()
        p.waitUntilExit()
        return Result(
            status: p.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
            stderr: String(decoding: errData, as: UTF8.self))
    }
}
