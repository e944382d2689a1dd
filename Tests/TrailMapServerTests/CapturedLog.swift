import Logging
import Synchronization

/// A log handler that keeps what is logged.
struct CapturedLog: LogHandler {
    final class Store: Sendable {
        let lines = Mutex<[(level: Logger.Level, message: String)]>([])
    }

    let store = Store()
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace
    var lines: [(level: Logger.Level, message: String)] { store.lines.withLock { $0 } }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        store.lines.withLock { $0.append((event.level, "\(event.message)")) }
    }
}
