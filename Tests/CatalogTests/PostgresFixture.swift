import Catalog
import Foundation
import Synchronization
import TileGeometry
import Testing
import TrailMapTestSupport

/// A PostgreSQL catalog in a fresh database, with `CatalogFixture`'s bundles and product files.
struct PostgresFixture {
    let files: CatalogFixture
    let url: String
    let catalog: PostgresCatalog
    let sessionLifetime: TimeInterval
    /// Runs register and login as the server does: on password-hashing threads.
    static let kdf = KeyDerivationPool(workers: 4, queueLimit: 10_000)

    init(sessionLifetime: TimeInterval = 3600) async throws {
        files = try CatalogFixture()
        url = try PostgresTestServer.freshDatabase()
        self.sessionLifetime = sessionLifetime
        catalog = try await Self.open(url, sessionLifetime: sessionLifetime)
    }

    static func open(_ url: String, sessionLifetime: TimeInterval = 3600) async throws -> PostgresCatalog {
        try await PostgresCatalog.open(try PostgresCatalogConfiguration(url: url), hasher: PasswordHasher(rounds: 1 << 10),
                                       sessionLifetime: sessionLifetime)
    }

    /// Another "server": its own catalog instance and connection pool on the same database.
    func another() async throws -> PostgresCatalog { try await Self.open(url, sessionLifetime: sessionLifetime) }

    /// The sample store (a free base map, two paid regions), published.
    func publishSample() async throws {
        try files.bundle("world", seed: 1, bounds: .world, zooms: 0...2)
        try files.bundle("colorado", seed: 2)
        try files.bundle("rocky", seed: 3, bounds: .init(west: -105.9, south: 40.15, east: -105.45, north: 40.55), zooms: 8...9)
        let file = try files.productFile([
            CatalogFixture.entry("base", bundle: "world.mbtiles", price: "0", category: "Base maps"),
            CatalogFixture.entry("colorado", bundle: "colorado.mbtiles"),
            CatalogFixture.entry("rocky", bundle: "rocky.mbtiles", price: "2.99", category: "National Parks/Rocky Mountain"),
        ])
        _ = try await catalog.publish(try ProductFile.load(path: file), tilesDirectory: files.dir.path)
    }

    func account(_ email: String = "ann@example.com", on c: PostgresCatalog? = nil) async throws -> Account {
        try await register(email, "correct horse battery", on: c)
    }

    func register(_ email: String, _ password: String, address: String? = nil, on c: PostgresCatalog? = nil) async throws(CatalogError) -> Account {
        let store = c ?? catalog
        return try await Self.kdf.run { () throws(CatalogError) in try store.register(email: email, password: password, address: address) }
    }

    func login(_ email: String, _ password: String = "correct horse battery", address: String? = nil,
               on c: PostgresCatalog? = nil) async throws(CatalogError) -> Session {
        let store = c ?? catalog
        return try await Self.kdf.run { () throws(CatalogError) in try store.login(email: email, password: password, address: address) }
    }

    /// The error code a failing call throws, or "ok".
    static func code(_ body: () async throws -> Void) async -> String {
        do { try await body(); return "ok" } catch { return (error as? CatalogError)?.code ?? "\(error)" }
    }
}
