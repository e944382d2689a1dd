import Catalog
import Foundation
import GRDB
import Logging

/// The catalog database: products, categories, accounts, sessions, devices, transactions,
/// entitlements, installs and the audit log, in one SQLite file (WAL, GRDB pool).
///
/// Every operation is a synchronous, short transaction; uniqueness constraints (not
/// check-then-insert) make concurrent duplicates collapse to one row.
public final class CatalogDatabase: Sendable {
    public let path: String
    let pool: DatabasePool
    /// One connection of its own for `changeStamp()` (SQLite's data version is per connection).
    private let watcher: DatabaseQueue
    let hasher: PasswordHasher
    let throttle: LoginThrottle
    /// How long a login token lives.
    public let sessionLifetime: TimeInterval
    let logger: Logger

    /// Opens (creating and migrating as needed) the catalog at `path`.
    public convenience init(
        path: String, hasher: PasswordHasher = PasswordHasher(), sessionLifetime: TimeInterval = 30 * 86_400,
        logger: Logger = Logger(label: "trailmap.catalog")
    ) throws(CatalogError) {
        try self.init(path: path, hasher: hasher, sessionLifetime: sessionLifetime, logger: logger, throttleLimits: .init())
    }

    /// The same, with the login throttle's limits (tests).
    init(
        path: String, hasher: PasswordHasher, sessionLifetime: TimeInterval, logger: Logger,
        throttleLimits: ThrottleRules.Limits
    ) throws(CatalogError) {
        self.path = path
        self.hasher = hasher
        self.sessionLifetime = sessionLifetime
        self.logger = logger
        throttle = LoginThrottle(limits: throttleLimits)
        let folder = (path as NSString).deletingLastPathComponent
        if !folder.isEmpty, !FileManager.default.fileExists(atPath: folder) {
            throw .invalidArgument("cannot create the catalog \(path): folder \(folder) does not exist")
        }
        // The catalog holds password hashes, sessions and the tile-token key: only its owner may
        // read it (SQLite gives the -wal and -shm files the database's mode).
        if !FileManager.default.fileExists(atPath: path) {
            let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            if fd >= 0 { close(fd) }
        }
        do {
            var config = Configuration()
            config.foreignKeysEnabled = true
            config.busyMode = .timeout(10)
            pool = try DatabasePool(path: path, configuration: config)
            try CatalogSchema.migrator.migrate(pool)
            var watching = Configuration()
            watching.readonly = true
            watching.busyMode = .timeout(10)
            watcher = try DatabaseQueue(path: path, configuration: watching)
        } catch {
            throw .database("cannot open \(path): \(error)")
        }
    }

    /// A number that differs from the previous call's whenever anything was committed to the
    /// catalog in between, by this process or another (`trailmap catalog publish` while the
    /// server runs): for caches of what the catalog holds. SQLite's `PRAGMA data_version` on a
    /// connection kept for it.
    public func changeStamp() throws(CatalogError) -> Int {
        do { return try watcher.inDatabase { try Int.fetchOne($0.cachedStatement(sql: "PRAGMA data_version")) ?? 0 } } catch {
            throw .database("\(error)")
        }
    }

    /// Runs a write transaction, mapping database errors to `CatalogError.database`.
    func write<T>(_ body: (Database) throws -> T) throws(CatalogError) -> T {
        do { return try pool.write(body) } catch let e as CatalogError { throw e } catch { throw .database("\(error)") }
    }

    /// Runs a read, mapping database errors to `CatalogError.database`.
    func read<T>(_ body: (Database) throws -> T) throws(CatalogError) -> T {
        do { return try pool.read(body) } catch let e as CatalogError { throw e } catch { throw .database("\(error)") }
    }

    /// Appends a line to the audit log (inside the caller's transaction).
    static func audit(
        _ db: Database, account: String?, product: String?, originalTransaction: String?,
        action: AuditAction, reason: String
    ) throws {
        try db.execute(
            sql: """
                INSERT INTO audit_log(at, account_id, product_id, original_transaction_id, action, reason)
                VALUES (?, ?, ?, ?, ?, ?)
                """, arguments: [Date().timeIntervalSince1970, account, product, originalTransaction, action.rawValue, reason])
    }
}

extension CatalogDatabase: CatalogStore {}
