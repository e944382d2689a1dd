import Foundation
import Synchronization

/// One real PostgreSQL cluster per test run (scripts/postgres.sh, in a temporary folder),
/// stopped when the test process exits; each test gets a fresh database of its own.
public enum PostgresTestServer {
    /// The cluster's URL without a database, or why it could not start.
    public static let base: Result<(host: String, port: Int, folder: String), PostgresTestServerError> = start()

    /// scripts/postgres.sh of this checkout.
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("scripts/postgres.sh").path

    private static func start() -> Result<(host: String, port: Int, folder: String), PostgresTestServerError> {
        let folder = "/tmp/trailmap-pg-test-\(getpid())"
        let port = 20_000 + Int(getpid() % 20_000)
        let (status, output) = run(script, ["start", folder, String(port)])
        guard status == 0 else { return .failure(PostgresTestServerError(message: "scripts/postgres.sh start failed: \(output)")) }
        stopFolder.withLock { $0 = (script, folder) }
        atexit {
            guard let (script, folder) = PostgresTestServer.stopFolder.withLock({ $0 }) else { return }
            _ = PostgresTestServer.run(script, ["stop", folder])
            try? FileManager.default.removeItem(atPath: folder)
        }
        return .success(("127.0.0.1", port, folder))
    }

    static let stopFolder = Mutex<(String, String)?>(nil)
    static let counter = Atomic<Int>(0)

    /// Seconds a test's catalog may wait for a connection. The catalog's own default (5 s) is
    /// for servers; a full test run on two cores, with a hundred catalogs opening at once beside
    /// builds and browsers, can take longer than that to get one. Tests of the timeout itself
    /// give their own `connect_timeout`.
    public static let connectTimeout = 60

    /// A new, empty database; its URL (with `connectTimeout`). psql runs off the shared
    /// concurrency pool.
    public static func freshDatabase() async throws -> String {
        let name = "t\(getpid())_\(counter.add(1, ordering: .relaxed).newValue)"
        // (The first call starts the cluster: that waits too.)
        let (server, status, output) = try await offThePool {
            let server = try base.get()
            let (status, output) = run(
                "/usr/bin/psql",
                [
                    "-h", server.host, "-p", String(server.port), "-U", "trailmap",
                    "-d", "postgres", "-qc", "CREATE DATABASE \(name)"
                ])
            return (server, status, output)
        }
        guard status == 0 else { throw PostgresTestServerError(message: "CREATE DATABASE failed: \(output)") }
        return "postgres://trailmap@\(server.host):\(server.port)/\(name)?sslmode=disable&connect_timeout=\(connectTimeout)"
    }

    /// Runs `sql` (one statement) with psql on the database at `url` and returns its rows, one a
    /// line (empty lines left out), columns separated by `|`; a statement the server refuses
    /// throws, with its message.
    /// It waits for psql: call it off the shared concurrency pool where that matters.
    public static func psql(_ url: String, _ sql: String) throws -> [String] {
        let (status, output) = run("/usr/bin/psql", ["-X", "-A", "-t", "-q", "-v", "ON_ERROR_STOP=1", "-d", url, "-c", sql])
        guard status == 0 else { throw PostgresTestServerError(message: "psql refused \(sql): \(output)") }
        return output.split(separator: "\n").map(String.init)
    }

    /// Runs a tool and waits for it (`ChildProcess`, which waits with waitpid: Foundation's
    /// Process can miss the exit of a script that leaves a server running behind it); its output
    /// goes through a file. The status is the exit code, or the signal that ended the tool.
    public static func run(_ tool: String, _ arguments: [String]) -> (Int32, String) {
        let log = "/tmp/trailmap-pg-run-\(getpid())-\(counter.add(1, ordering: .relaxed).newValue).log"
        defer { unlink(log) }
        guard FileManager.default.createFile(atPath: log, contents: nil, attributes: [.posixPermissions: 0o600]),
            let output = FileHandle(forWritingAtPath: log)
        else { return (-1, "cannot run \(tool): cannot create \(log)") }
        // Nothing else of the test process (ChildProcess closes it in the child): a server started
        // by the script outlives the call.
        let child = ChildProcess()
        child.executableURL = URL(fileURLWithPath: tool)
        child.arguments = arguments
        child.standardInput = FileHandle.nullDevice
        child.standardOutput = output
        child.standardError = output
        do {
            try child.run()
        } catch {
            try? output.close()
            return (-1, "\(error)")
        }
        try? output.close()
        child.waitUntilExit()
        return (child.terminationStatus, (try? String(contentsOfFile: log, encoding: .utf8)) ?? "")
    }
}

public struct PostgresTestServerError: Error, CustomStringConvertible {
    public var message: String
    public init(message: String) { self.message = message }
    public var description: String { message }
    /// The server could not listen: another process holds its port.
    public var portTaken: Bool { message.contains("Address already in use") }
}
