import Catalog
import CatalogSQLite
import Foundation
import Testing
import TrailMapTestSupport

/// Hardening, finding 11 (lows) in the catalog: the SQLite file's mode; expired sessions, on both backends.
@Suite struct CatalogLowFindingsTests {
    // Hardening finding 11 (docs/notes/hardening.md).
    @Test func theCatalogFileIsReadableByItsOwnerOnly() throws {
        let dir = TemporaryDirectory()
        let old = umask(0o022)
        defer { umask(old) }
        let path = dir.file("catalog.sqlite")
        let db = try CatalogDatabase(path: path, hasher: PasswordHasher(rounds: 1 << 10))
        _ = try db.register(email: "ann@example.com", password: "correct horse battery")
        for file in [path, path + "-wal"] where FileManager.default.fileExists(atPath: file) {
            let mode = try #require(try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int)
            #expect(mode & 0o077 == 0, "\(file): \(String(mode, radix: 8))")
        }
    }

    // Hardening finding 11 (docs/notes/hardening.md).
    @Test(arguments: Backend.allCases)
    func expiredSessionsOfEveryAccountArePurged(_ backend: Backend) async throws {
        let f = try await CatalogFixture(backend, sessionLifetime: -1)
        _ = try await f.account()
        _ = try await f.account("bob@example.com")
        for _ in 0..<3 { _ = try await f.login("ann@example.com") }
        // Bob's login removes Ann's expired sessions too.
        _ = try await f.login("bob@example.com")
        #expect(try await f.count("sessions") == 1)
    }
}
