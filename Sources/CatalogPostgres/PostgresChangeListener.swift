import Catalog
import Foundation
import Logging
import PostgresNIO
import Synchronization

/// Keeps the catalog's change stamp in memory from `LISTEN trailmap_catalog_changes`, so that a
/// server answers `changeStamp()` (asked by every anonymous catalog request) without a query.
/// Every write transaction notifies the channel with its new stamp on commit; the listener
/// reads the stamp once after `LISTEN` is in place (a write between the two is not missed) and
/// then keeps the largest stamp notified. While it has no connection (at start, after the
/// database went away) `stamp` is nil and callers query; it reconnects every second (each try
/// bounded by the connect timeout, and never left waiting on a closed connection:
/// `PostgresClient.lease`).
final class PostgresChangeListener: Sendable {
    private let state = Mutex<Int?>(nil)
    private let task = Mutex<Task<Void, Never>?>(nil)

    /// The stamp as last notified, or nil when not listening.
    var stamp: Int? { state.withLock { $0 } }

    /// Starts listening on `client` until `stop()`.
    func start(client: PostgresClient, channel: String, connectTimeout: Duration, logger: Logger) {
        let t = Task { [self] in
            while !Task.isCancelled {
                do {
                    try await client.lease(
                        connectTimeout: connectTimeout, unreachable: { .database("no connection to listen on") },
                        logger: logger
                    ) { conn in
                        try await conn.listen(on: channel) { notifications in
                            let first =
                                try await conn.query("SELECT change_stamp FROM catalog_state WHERE id = 1", logger: logger)
                                .collect().first?.decode(Int.self) ?? 0
                            self.state.withLock { $0 = max($0 ?? first, first) }
                            for try await n in notifications {
                                guard let value = Int(n.payload) else { continue }
                                self.state.withLock { $0 = max($0 ?? value, value) }
                            }
                        }
                    }
                } catch {
                    if !Task.isCancelled {
                        logger.warning(
                            """
                            catalog change listener lost its connection; catalog reads query the stamp until it is back: \
                            \(String(reflecting: error).prefix(200))
                            """
                        )
                    }
                }
                self.state.withLock { $0 = nil }
                try? await Task.sleep(for: .seconds(1))
            }
        }
        task.withLock { $0 = t }
    }

    func stop() {
        task.withLock { $0?.cancel() }
        state.withLock { $0 = nil }
    }
}
