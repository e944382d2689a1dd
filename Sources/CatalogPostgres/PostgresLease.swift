import Catalog
import Foundation
import Logging
import PostgresNIO
import Synchronization

extension PostgresClient {
    /// Runs `body` on a leased connection with two deadlines postgres-nio does not keep:
    ///
    /// - a connection must come within `connectTimeout` (database down, wrong address, pool
    ///   exhausted), else this fails with `unreachable`;
    /// - once the connection has closed under the body (the database went away), the body has
    ///   about a second to fail by itself, else this fails with `CatalogError.database`.
    ///   postgres-nio never answers a query written to a connection whose channel has already
    ///   closed (its promise is dropped with the write), so a body that issues one after the
    ///   database vanished would wait forever. Such a body is left behind, still waiting; it
    ///   holds no pool slot (the pool forgets a closed connection).
    ///
    /// Cancelling the caller cancels the lease and the body.
    func lease<T: Sendable>(
        connectTimeout: Duration, unreachable: @escaping @Sendable () -> CatalogError, logger: Logger,
        _ body: @escaping @Sendable (PostgresConnection) async throws -> T
    ) async throws -> T {
        let answer = FirstAnswer<T>()
        let leased = LeasedConnection()
        let work = Task {
            do {
                let value = try await self.withConnection { conn in
                    // Already answered (the connection came after the deadline): do nothing.
                    guard !answer.isAnswered else { throw CancellationError() }
                    leased.set(conn)
                    return try await body(conn)
                }
                answer.give(.success(value))
            } catch {
                answer.give(.failure(error))
            }
        }
        let watchdog = Task {
            do { try await Task.sleep(for: connectTimeout) } catch { return }
            guard let conn = leased.connection else {
                if answer.give(.failure(unreachable())) { work.cancel() }
                return
            }
            // The body runs on `conn`: watch it close (checked every quarter of a second).
            var closedChecks = 0
            while !Task.isCancelled {
                closedChecks = conn.isClosed ? closedChecks + 1 : 0
                if closedChecks > 4 {
                    if answer.give(
                        .failure(CatalogError.database("the connection to the PostgreSQL catalog was lost during the operation")))
                    {
                        logger.warning(
                            """
                            a catalog operation was still waiting on PostgreSQL connection \(conn.id) a second after it closed; answered \
                            for it
                            """
                        )
                        work.cancel()
                    }
                    return
                }
                try? await Task.sleep(for: .milliseconds(250))
            }
        }
        defer { watchdog.cancel() }
        return try await withTaskCancellationHandler {
            try await answer.value()
        } onCancel: {
            work.cancel()
        }
    }
}

/// The connection a lease got, once it has one.
final class LeasedConnection: Sendable {
    private let value = Mutex<PostgresConnection?>(nil)
    var connection: PostgresConnection? { value.withLock { $0 } }
    func set(_ c: PostgresConnection) { value.withLock { $0 = c } }
}

/// The first of several answers for one waiting caller (later ones are dropped).
final class FirstAnswer<T: Sendable>: Sendable {
    private struct State {
        var given: Result<T, any Error>?
        var waiting: CheckedContinuation<T, any Error>?
        var answered = false
    }

    private let state = Mutex(State())

    var isAnswered: Bool { state.withLock { $0.answered } }

    /// Answers with `result` unless an answer was given before; whether this one was taken.
    @discardableResult
    func give(_ result: Result<T, any Error>) -> Bool {
        let (taken, waiting) = state.withLock { s -> (Bool, CheckedContinuation<T, any Error>?) in
            guard !s.answered else { return (false, nil) }
            s.answered = true
            guard let w = s.waiting else {
                s.given = result
                return (true, nil)
            }
            s.waiting = nil
            return (true, w)
        }
        waiting?.resume(with: result)
        return taken
    }

    /// Waits for the first answer (at once if it was given already).
    func value() async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let given = state.withLock { s -> Result<T, any Error>? in
                if let g = s.given {
                    s.given = nil
                    return g
                }
                s.waiting = continuation
                return nil
            }
            if let given { continuation.resume(with: given) }
        }
    }
}
