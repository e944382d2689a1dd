import Catalog
import Foundation
import Logging
import PostgresNIO

/// The catalog in PostgreSQL, for several servers sharing one catalog (issue "Scale-out").
/// It implements `CatalogStore` with the same behaviour as `CatalogDatabase` (SQLite); the
/// decisions both make (refund order, listing status, publishing versions, key rotation, the
/// login throttle) are shared functions, the queries are each backend's own.
///
/// Everything a server must share lives in the database: sessions, the login throttle's counts
/// (`login_attempts`), the tile-token keys, the audit log and the notification UUIDs already
/// handled. Concurrent writers from any number of servers are kept apart by unique constraints
/// with `INSERT ... ON CONFLICT` and by transaction-scoped advisory locks (per account and per
/// original transaction for purchases and notifications), all at READ COMMITTED; a deadlock or
/// serialization failure (SQLSTATE 40P01, 40001) is retried.
///
/// Connections come from a `PostgresClient` pool (at most `maximumConnections`), run in a task
/// for the life of the catalog: call `close()` when done. An unreachable database is reported as
/// `CatalogError.database` after `connectTimeout`, never a hang.
public final class PostgresCatalog: CatalogStore {
    public let configuration: PostgresCatalogConfiguration
    let client: PostgresClient
    private let running: Task<Void, Never>
    let hasher: PasswordHasher
    /// How long a login token lives.
    public let sessionLifetime: TimeInterval
    let throttleLimits: ThrottleRules.Limits
    let logger: Logger
    /// The change stamp from LISTEN (`PostgresChangeListener`), when connected.
    let changes = PostgresChangeListener()
    /// The channel every write transaction notifies (payload: the new change stamp), for
    /// servers that LISTEN instead of polling `changeStamp()`.
    public static let changeChannel = "trailmap_catalog_changes"

    private init(
        configuration: PostgresCatalogConfiguration, hasher: PasswordHasher, sessionLifetime: TimeInterval,
        throttleLimits: ThrottleRules.Limits, logger: Logger
    ) {
        self.configuration = configuration
        self.hasher = hasher
        self.sessionLifetime = sessionLifetime
        self.throttleLimits = throttleLimits
        self.logger = logger
        let client = PostgresClient(configuration: Self.clientConfiguration(configuration), backgroundLogger: logger)
        self.client = client
        running = Task { await client.run() }
    }

    /// Connects to the catalog at `configuration`, creating and upgrading its tables as needed
    /// (servers starting together upgrade it once). Fails with `CatalogError.database` when the
    /// database cannot be reached within the connect timeout.
    public static func open(
        _ configuration: PostgresCatalogConfiguration, hasher: PasswordHasher = PasswordHasher(),
        sessionLifetime: TimeInterval = 30 * 86_400,
        logger: Logger = Logger(label: "trailmap.catalog")
    ) async throws(CatalogError) -> PostgresCatalog {
        try await open(configuration, hasher: hasher, sessionLifetime: sessionLifetime, throttleLimits: .init(), logger: logger)
    }

    package static func open(
        _ configuration: PostgresCatalogConfiguration, hasher: PasswordHasher, sessionLifetime: TimeInterval,
        throttleLimits: ThrottleRules.Limits, logger: Logger
    ) async throws(CatalogError) -> PostgresCatalog {
        let catalog = PostgresCatalog(
            configuration: configuration, hasher: hasher, sessionLifetime: sessionLifetime,
            throttleLimits: throttleLimits, logger: logger)
        do { try await PostgresSchema.migrate(catalog) } catch {
            catalog.close()
            throw error
        }
        catalog.changes.start(client: catalog.client, channel: changeChannel, connectTimeout: configuration.connectTimeout, logger: logger)
        return catalog
    }

    /// Closes the connection pool; operations after this fail.
    public func close() {
        changes.stop()
        running.cancel()
    }

    deinit {
        changes.stop()
        running.cancel()
    }

    private static func clientConfiguration(_ c: PostgresCatalogConfiguration) -> PostgresClient.Configuration {
        var config: PostgresClient.Configuration
        switch c.endpoint {
        case let .tcp(host, port):
            let tls: PostgresClient.Configuration.TLS =
                switch c.tls {
                case .disable: .disable
                case .prefer: .prefer(.makeClientConfiguration())
                case .require: .require(.makeClientConfiguration())
                }
            config = .init(host: host, port: port, username: c.username, password: c.password, database: c.database, tls: tls)
        case let .unixSocket(path):
            config = .init(unixSocketPath: path, username: c.username, password: c.password, database: c.database)
        }
        config.options.maximumConnections = c.maximumConnections
        config.options.connectTimeout = c.connectTimeout
        // No statement may hold a connection (and its locks) for long.
        config.options.additionalStartupParameters = [("statement_timeout", "30s"), ("application_name", "trailmap")]
        return config
    }
}
