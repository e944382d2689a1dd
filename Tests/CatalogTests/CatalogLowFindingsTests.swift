import Catalog
import Foundation
import GRDB
import Testing
import TrailMapTestSupport

/// Hardening, finding 11 (lows) in the catalog.
@Suite struct CatalogLowFindingsTests {
    @Test func finding11_theCatalogFileIsReadableByItsOwnerOnly() throws {
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

    @Test func finding11_expiredSessionsOfEveryAccountArePurged() throws {
        let f = try CatalogFixture(sessionLifetime: -1)
        _ = try f.account()
        _ = try f.account("bob@example.com")
        for _ in 0..<3 { _ = try f.db.login(email: "ann@example.com", password: "correct horse battery") }
        // Bob's login removes Ann's expired sessions too.
        _ = try f.db.login(email: "bob@example.com", password: "correct horse battery")
        let count = try DatabaseQueue(path: f.dir.file("catalog.sqlite")).read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM sessions") }
        #expect(count == 1)
    }
}
