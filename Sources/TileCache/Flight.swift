import Dispatch
import Synchronization

/// One load in progress: the first thread to miss a key reads the bundle, the others that miss
/// it meanwhile wait here (on their own thread, no queue hop) for the same result. A load nobody
/// joins costs one small object: a waiter makes its own semaphore.
final class Flight: Sendable {
    private struct State {
        var result: Result<CachedTile?, any Error>?
        var waiters: [DispatchSemaphore] = []
    }

    private let state = Mutex(State())

    /// Blocks until the leader finishes; returns its tile or rethrows its error.
    func wait() throws -> CachedTile? {
        let semaphore: DispatchSemaphore? = state.withLock { s in
            guard s.result == nil else { return nil }
            let w = DispatchSemaphore(value: 0)
            s.waiters.append(w)
            return w
        }
        semaphore?.wait()
        return try state.withLock { $0.result }?.get() ?? nil
    }

    func finish(_ r: Result<CachedTile?, any Error>) {
        let waiters = state.withLock { s in
            s.result = r
            defer { s.waiters = [] }
            return s.waiters
        }
        for w in waiters { w.signal() }
    }
}
