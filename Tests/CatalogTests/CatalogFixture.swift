@testable import Catalog
@testable import CatalogPostgres
@testable import CatalogSQLite
import Foundation
import Logging
import Testing
import TrailMapTestSupport

/// The catalog backends every behavioural suite runs against.
enum Backend: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite, postgres
    var testDescription: String { rawValue }
}

/// A catalog on either backend, seen only through `CatalogStore` (as the server sees it), with a
/// folder of bundles and product files: SQLite in a file of the folder, PostgreSQL in a fresh
/// database of the test run's cluster (`PostgresTestServer`).
struct CatalogFixture {
    let backend: Backend
    let files = CatalogFiles()
    let store: any CatalogStore
    let sessionLifetime: TimeInterval
    /// The login throttle's limits, the same for every "server" of the fixture (`another()`).
    let throttleLimits: ThrottleRules.Limits
    /// The PostgreSQL database's URL (nil on SQLite).
    let databaseURL: String?
    /// Runs register and login as the server does: on password-hashing threads, never on the
    /// shared concurrency pool (PostgreSQL's waits for its database there).
    static let kdf = KeyDerivationPool(workers: 4, queueLimit: 10_000)
    static let hasher = PasswordHasher(rounds: 1 << 10)

    /// `firstLock`: the login throttle's first lock in seconds (long, for tests that must see a
    /// lock whatever the machine's load).
    init(_ backend: Backend, sessionLifetime: TimeInterval = 3600, firstLock: TimeInterval = 2) async throws {
        self.backend = backend
        self.sessionLifetime = sessionLifetime
        var limits = ThrottleRules.Limits()
        limits.firstLock = firstLock
        throttleLimits = limits
        switch backend {
        case .sqlite:
            databaseURL = nil
            store = try CatalogDatabase(
                path: files.dir.file("catalog.sqlite"), hasher: Self.hasher, sessionLifetime: sessionLifetime,
                logger: Logger(label: "trailmap.catalog"), throttleLimits: limits)
        case .postgres:
            let url = try await PostgresTestServer.freshDatabase()
            databaseURL = url
            store = try await PostgresCatalog.open(
                try PostgresCatalogConfiguration(url: url), hasher: Self.hasher,
                sessionLifetime: sessionLifetime, throttleLimits: limits,
                logger: Logger(label: "trailmap.catalog"))
        }
    }

    static func openPostgres(
        _ url: String, sessionLifetime: TimeInterval = 3600, throttleLimits: ThrottleRules.Limits = .init()
    ) async throws -> PostgresCatalog {
        try await PostgresCatalog.open(
            try PostgresCatalogConfiguration(url: url), hasher: hasher, sessionLifetime: sessionLifetime, throttleLimits: throttleLimits,
            logger: Logger(label: "trailmap.catalog"))
    }

    /// The same catalog opened again: a second SQLite connection to the file, another PostgreSQL
    /// catalog instance (its own connection pool) on the database, as another server would.
    func reopen() async throws -> any CatalogStore {
        switch backend {
        case .sqlite: try CatalogDatabase(path: files.dir.file("catalog.sqlite"), hasher: Self.hasher, sessionLifetime: sessionLifetime)
        case .postgres: try await another()
        }
    }

    /// Another "server" on the PostgreSQL database; close it when done.
    func another() async throws -> PostgresCatalog {
        guard let databaseURL else { throw PostgresTestServerError(message: "another() is for PostgreSQL catalogs") }
        return try await Self.openPostgres(databaseURL, sessionLifetime: sessionLifetime, throttleLimits: throttleLimits)
    }

    /// The catalog as a `PostgresCatalog` (PostgreSQL-only suites).
    var postgres: PostgresCatalog {
        get throws { try #require(store as? PostgresCatalog, "a PostgreSQL fixture") }
    }

    /// The sample store (a free base map, two paid regions), published.
    func publishSample() async throws {
        _ = try await store.publish(try files.writeSample(), tilesDirectory: files.dir.path)
    }

    /// Publishes the product file at `path` (in the fixture's folder).
    func publish(_ path: String) async throws(CatalogError) -> [PublishResult] {
        try await store.publish(try ProductFile.load(path: path), tilesDirectory: files.dir.path)
    }

    /// A registered account.
    func account(_ email: String = "ann@example.com", on other: (any CatalogStore)? = nil) async throws -> Account {
        try await register(email, "correct horse battery", on: other)
    }

    func register(
        _ email: String, _ password: String, address: String? = nil,
        on other: (any CatalogStore)? = nil
    ) async throws(CatalogError) -> Account {
        let store = other ?? self.store
        return try await Self.kdf.run { () throws(CatalogError) in try store.register(email: email, password: password, address: address) }
    }

    func login(
        _ email: String, _ password: String = "correct horse battery", address: String? = nil,
        on other: (any CatalogStore)? = nil
    ) async throws(CatalogError) -> Session {
        let store = other ?? self.store
        return try await Self.kdf.run { () throws(CatalogError) in try store.login(email: email, password: password, address: address) }
    }

    /// A purchase as the store would describe it.
    static func purchase(_ product: String, id: String, original: String? = nil, token: String? = nil) -> StorePurchase {
        StorePurchase(
            transactionId: id, originalTransactionId: original ?? id, productId: product, appAccountToken: token,
            purchaseDate: Date(), environment: "Sandbox")
    }

    /// The error code a failing call throws, or "ok".
    static func code(_ body: () async throws -> Void) async -> String {
        do { try await body(); return "ok" } catch { return (error as? CatalogError)?.code ?? "\(error)" }
    }
}
