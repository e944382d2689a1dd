import Foundation

/// One load in progress: the first thread to miss a key reads the bundle, the others that miss
/// it meanwhile wait here (on their own thread, no queue hop) for the same result.
final class Flight: @unchecked Sendable {
    private let condition = NSCondition()
    private var result: Result<CachedTile?, any Error>?

    /// Blocks until the leader finishes; returns its tile or rethrows its error.
    func wait() throws -> CachedTile? {
        condition.lock()
        defer { condition.unlock() }
        while result == nil { condition.wait() }
        return try result?.get() ?? nil
    }

    func finish(_ r: Result<CachedTile?, any Error>) {
        condition.lock()
        result = r
        condition.broadcast()
        condition.unlock()
    }
}
