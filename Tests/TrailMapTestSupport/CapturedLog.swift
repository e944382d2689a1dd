import Logging
import Synchronization

/// A log handler that keeps what is logged.
public struct CapturedLog: LogHandler {
    public final class Store: Sendable {
        let lines = Mutex<[(level: Logger.Level, message: String)]>([])
    }

    public let store = Store()
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level = .trace
    public var lines: [(level: Logger.Level, message: String)] { store.lines.withLock { $0 } }

    public init() {}

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        store.lines.withLock { $0.append((event.level, "\(event.message)")) }
    }
}
