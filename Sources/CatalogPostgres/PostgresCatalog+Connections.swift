import Catalog
import Foundation
import Logging
import PostgresNIO
import Synchronization

/// Leasing connections, transactions, retries and errors.
extension PostgresCatalog {
    /// Runs `body` on a leased connection, outside any transaction. A lease that does not come
    /// within the connect timeout (database down, wrong address, pool exhausted) fails.
    func withConnection<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> T) async throws(CatalogError) -> T {
        do { return try await leased(body) } catch { throw map(error) }
    }

    /// Runs `body` in a transaction (READ COMMITTED unless `isolation` says otherwise), retrying a
    /// few times on deadlock or serialization failure. Unless `bumpsStamp` is false, the
    /// transaction also moves the change stamp and notifies `changeChannel` (on commit).
    func transaction<T: Sendable>(
        isolation: String = "READ COMMITTED", bumpsStamp: Bool = true,
        _ body: @escaping @Sendable (PostgresConnection) async throws -> T
    ) async throws(CatalogError) -> T {
        let logger = logger
        var attempt = 0
        while true {
            attempt += 1
            do {
                return try await leased { conn in
                    try await conn.query(PostgresQuery(unsafeSQL: "BEGIN ISOLATION LEVEL \(isolation)"), logger: logger)
                    do {
                        let value = try await body(conn)
                        if bumpsStamp {
                            try await conn.run(
                                """
                                WITH s AS (UPDATE catalog_state SET change_stamp = change_stamp + 1 WHERE id = 1 RETURNING change_stamp)
                                SELECT pg_notify(\(Self.changeChannel), change_stamp::text) FROM s
                                """, logger)
                        }
                        try await conn.query("COMMIT", logger: logger)
                        return value
                    } catch {
                        // Not on a closed connection: the server has rolled back, and a query
                        // written there would never be answered.
                        if !conn.isClosed { _ = try? await conn.query("ROLLBACK", logger: logger) }
                        throw error
                    }
                }
            } catch let e as PSQLError where attempt < 6 && ["40001", "40P01"].contains(e.serverInfo?[.sqlState]) {
                try? await Task.sleep(for: .milliseconds(Int.random(in: 1...(10 << attempt))))
            } catch {
                throw map(error)
            }
        }
    }

    /// A lease with a deadline on getting the connection (not on the work once it has one:
    /// `statement_timeout` bounds that) and on a body left waiting on a closed connection
    /// (`PostgresClient.lease`).
    private func leased<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        let timeout = configuration.connectTimeout, where_ = configuration.description
        return try await client.lease(
            connectTimeout: timeout,
            unreachable: {
                .database(
                    """
                    cannot reach the PostgreSQL catalog \(where_) within \(timeout.components.seconds) s: is the server running, and are \
                    the address, user and database right?
                    """
                )
            }, logger: logger, body)
    }

    /// A `CatalogError` for anything thrown by PostgresNIO or a body (never the password, nor the query's values).
    func map(_ error: any Error) -> CatalogError {
        if let e = error as? CatalogError { return e }
        if let e = error as? PSQLError {
            if let info = e.serverInfo {
                let state = info[.sqlState] ?? "?", message = info[.message] ?? "server error"
                return .database("PostgreSQL (\(configuration.description)): \(message) [SQLSTATE \(state)]")
            }
            let underlying = e.underlying.map { ": \($0)" } ?? ""
            return .database("PostgreSQL (\(configuration.description)): \(e.code)\(underlying)")
        }
        if error is CancellationError { return .database("the PostgreSQL catalog operation was cancelled") }
        return .database("PostgreSQL (\(configuration.description)): \(error)")
    }

    /// Runs async work from a synchronous caller and waits for it. Only for `register` and
    /// `login`, which the server calls on its password-hashing threads (`KeyDerivationPool`),
    /// never on the shared concurrency pool (blocking its threads could starve the work waited for).
    func blocking<T: Sendable>(_ body: @escaping @Sendable () async throws(CatalogError) -> T) throws(CatalogError) -> T {
        let result = ResultBox<T>()
        let done = DispatchSemaphore(value: 0)
        Task {
            let r: Result<T, CatalogError>
            do throws(CatalogError) { r = .success(try await body()) } catch { r = .failure(error) }
            result.value.withLock { $0 = r }
            done.signal()
        }
        done.wait()
        guard let r = result.value.withLock({ $0 }) else { throw .database("the PostgreSQL catalog operation ended without an answer") }
        return try r.get()
    }
}

/// A result handed from a task to a waiting thread.
final class ResultBox<T: Sendable>: Sendable {
    let value = Mutex<Result<T, CatalogError>?>(nil)
}

extension PostgresConnection {
    /// The rows of a query, for reading by column name.
    func rows(_ query: PostgresQuery, _ logger: Logger) async throws -> [PostgresRandomAccessRow] {
        try await self.query(query, logger: logger).collect().map { $0.makeRandomAccess() }
    }

    /// Runs a statement to its end, ignoring any rows. (postgres-nio returns from `query` once
    /// the rows are described, before the statement has run: an error the server reports while
    /// running it, e.g. a statement timeout waiting for a lock, comes with the rows. Not
    /// reading them hid it, and the next statement failed with "current transaction is
    /// aborted" instead.)
    func run(_ query: PostgresQuery, _ logger: Logger) async throws {
        for try await _ in try await self.query(query, logger: logger) {}
    }
}

extension PostgresRandomAccessRow {
    /// The value of a column.
    func get<T: PostgresDecodable>(_ column: String, as: T.Type = T.self) throws -> T {
        try self[column].decode(T.self)
    }
}
