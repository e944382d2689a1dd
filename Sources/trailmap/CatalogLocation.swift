import ArgumentParser
import Catalog
import CatalogPostgres
import CatalogSQLite
import Foundation
import Logging

/// Where the catalog is, as `--catalog` names it: a SQLite file (the embedded default), or a
/// PostgreSQL database shared by several servers: `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE`,
/// `postgresql://...`, or `postgres://USER@/DATABASE?host=/socket/folder` (see
/// `PostgresCatalogConfiguration`). Its description never shows the password.
enum CatalogLocation: Equatable, CustomStringConvertible {
    case sqlite(path: String)
    case postgres(PostgresCatalogConfiguration)

    /// What `--catalog` accepts, for help texts.
    static let help =
        """
        a SQLite file, or postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE (also postgresql://, or \
        postgres://USER@/DATABASE?host=/socket/folder)
        """

    /// Parses `--catalog`; a malformed PostgreSQL URL is a `ValidationError` saying what is wrong.
    init(_ string: String) throws {
        if PostgresCatalogConfiguration.isPostgresURL(string) {
            do { self = .postgres(try PostgresCatalogConfiguration(url: string)) } catch {
                throw ValidationError("--catalog: \(error.description)")
            }
        } else if string.contains("://") {
            throw ValidationError(
                """
                --catalog \(PostgresCatalogConfiguration.redacted(string)): only postgres:// and postgresql:// URLs are catalogs; anything \
                else is a SQLite file path
                """
            )
        } else {
            self = .sqlite(path: string)
        }
    }

    var description: String {
        switch self {
        case let .sqlite(path): path
        case let .postgres(c): c.description
        }
    }

    /// Whether the catalog exists already (a PostgreSQL database is assumed to: opening it says if not).
    var exists: Bool {
        switch self {
        case let .sqlite(path): FileManager.default.fileExists(atPath: path)
        case .postgres: true
        }
    }

    /// Opens the catalog (creating a SQLite file, or a PostgreSQL database's tables, as needed).
    func open(logger: Logger) async throws -> any CatalogStore {
        switch self {
        case let .sqlite(path): try CatalogDatabase(path: path, logger: logger)
        case let .postgres(c): try await PostgresCatalog.open(c, logger: logger)
        }
    }

    /// Closes what `open` opened (a PostgreSQL connection pool; SQLite needs nothing).
    static func close(_ store: any CatalogStore) {
        (store as? PostgresCatalog)?.close()
    }
}
