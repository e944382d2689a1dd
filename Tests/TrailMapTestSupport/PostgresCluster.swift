import Foundation
import Synchronization

/// A PostgreSQL cluster of one test's own (scripts/postgres.sh), in a temporary folder under /tmp
/// on a free port, for tests that stop and start the database (the shared `PostgresTestServer`
/// serves tests running in parallel and must stay up). `stop` and `start` keep the folder and
/// port, so clients find the same database again. `remove()` stops it and deletes the folder;
/// a cluster still running when the test process exits is stopped then. Every call that waits
/// for a tool (initdb, pg_ctl, psql) waits off the shared concurrency pool: the in-process
/// servers of the tests answer on that pool, and with two cores one such wait held half of it.
public final class PostgresCluster: Sendable {
    /// How `stop` ends the server (pg_ctl's shutdown modes).
    public enum StopMode: String, Sendable {
        /// Clients are disconnected, then a clean shutdown.
        case fast
        /// Every server process quits at once, as in a crash; the next start recovers from the WAL.
        case immediate
    }

    public let folder: String
    public let port: Int
    private static let running = Mutex<Set<String>>([])
    private static let stopAtExit: Void = { atexit { PostgresCluster.stopAll() } }()

    /// Creates and starts a cluster (user `trailmap`, trust authentication, database `trailmap`).
    /// A free port can be taken by another process (a test's client, whose ports come from the
    /// same range) before PostgreSQL binds it: then another port is tried.
    public init() throws {
        _ = Self.stopAtExit
        let folder = "/tmp/trailmap-pg-own-\(getpid())-\(PostgresTestServer.counter.add(1, ordering: .relaxed).newValue)"
        self.folder = folder
        var attempt = 0
        while true {
            let port = try LoopbackSocket.freePort()
            do {
                try Self.start(folder, port)
                self.port = port
                return
            } catch let error as PostgresTestServerError where error.portTaken && attempt < 4 {
                attempt += 1
            }
        }
    }

    /// Creates and starts a cluster off the shared concurrency pool (initdb and pg_ctl take seconds).
    public static func started() async throws -> PostgresCluster {
        try await offThePool { try PostgresCluster() }
    }

    /// The URL of `database` on this cluster (`options` as URL query options).
    public func url(database: String = "trailmap", options: String = "sslmode=disable") -> String {
        "postgres://trailmap@127.0.0.1:\(port)/\(database)" + (options.isEmpty ? "" : "?\(options)")
    }

    /// Starts the server (again) on the same folder and port; returns once it accepts connections.
    public func start() async throws {
        try await offThePool { try self.startNow() }
    }

    /// Starts the server again on its port; a port another process holds for a moment (a client's
    /// connection) is waited for, up to 10 s.
    private func startNow() throws {
        var attempt = 0
        while true {
            do {
                return try Self.start(folder, port)
            } catch let error as PostgresTestServerError where error.portTaken && attempt < 10 {
                attempt += 1
                Thread.sleep(forTimeInterval: 1)
            }
        }
    }

    private static func start(_ folder: String, _ port: Int) throws {
        running.withLock { _ = $0.insert(folder) }
        let (status, output) = PostgresTestServer.run(PostgresTestServer.script, ["start", folder, String(port)])
        guard status == 0 else { throw PostgresTestServerError(message: "scripts/postgres.sh start \(folder) \(port) failed: \(output)") }
    }

    /// Stops the server; returns once it has exited.
    public func stop(_ mode: StopMode = .fast) async throws {
        try await offThePool { try self.stopNow(mode) }
    }

    private func stopNow(_ mode: StopMode) throws {
        let (status, output) = PostgresTestServer.run(PostgresTestServer.script, ["stop", folder, mode.rawValue])
        guard status == 0 else { throw PostgresTestServerError(message: "scripts/postgres.sh stop \(folder) \(mode) failed: \(output)") }
        Self.running.withLock { _ = $0.remove(folder) }
    }

    /// Stops the server if it runs and deletes its folder, on a thread of its own (for a `defer`:
    /// the caller does not wait; a cluster not yet stopped when the process exits is stopped then).
    public func remove() {
        Thread {
            _ = try? self.stopNow(.fast)
            try? FileManager.default.removeItem(atPath: self.folder)
        }.start()
    }

    /// Runs one statement with psql on `database` (see `PostgresTestServer.psql`).
    public func psql(_ sql: String, database: String = "trailmap") async throws -> [String] {
        let url = url(database: database)
        return try await offThePool { try PostgresTestServer.psql(url, sql) }
    }

    private static func stopAll() {
        for folder in running.withLock({ $0 }) {
            _ = PostgresTestServer.run(PostgresTestServer.script, ["stop", folder, StopMode.immediate.rawValue])
            try? FileManager.default.removeItem(atPath: folder)
        }
    }
}
