import Foundation
import GRDB
import TrailMapTestSupport

/// Looking into the catalog's database directly, past `CatalogStore`, on either backend:
/// GRDB on the SQLite file, psql on the PostgreSQL database.
extension CatalogFixture {
    /// Rows in `table`.
    func count(_ table: String) async throws -> Int {
        let text = try await rows("SELECT COUNT(*) FROM \(table)").first
        guard let text, let n = Int(text) else { throw PostgresTestServerError(message: "no count of \(table): \(text ?? "no row")") }
        return n
    }

    /// The first column of each row `sql` returns, as text (NULL as "").
    func rows(_ sql: String) async throws -> [String] {
        switch backend {
        case .sqlite:
            let path = files.dir.file("catalog.sqlite")
            return try await DatabaseQueue(path: path).read { db in
                try Row.fetchAll(db, sql: sql).map { row in
                    switch row[0 as Int] as DatabaseValue {
                    case let v where v.isNull: ""
                    case let v: String.fromDatabaseValue(v) ?? Int64.fromDatabaseValue(v).map { "\($0)" } ?? "\(v)"
                    }
                }
            }
        case .postgres:
            let url = try requireURL()
            return try await offThePool { try PostgresTestServer.psql(url, sql) }
        }
    }

    /// Runs a statement on the database directly; throws when the database refuses it.
    func execute(_ sql: String) async throws {
        switch backend {
        case .sqlite:
            try await DatabaseQueue(path: files.dir.file("catalog.sqlite")).write { try $0.execute(sql: sql) }
        case .postgres:
            let url = try requireURL()
            _ = try await offThePool { try PostgresTestServer.psql(url, sql) }
        }
    }

    private func requireURL() throws -> String {
        guard let databaseURL else { throw PostgresTestServerError(message: "no PostgreSQL database") }
        return databaseURL
    }
}
