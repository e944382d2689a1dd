import Foundation
import Synchronization

/// Runs blocking work (waiting for psql, pg_ctl or another tool) on a thread of its own, so that
/// it never holds one of the shared concurrency pool's few threads: with two cores, two such
/// waits would stall every other test's awaits (PostgreSQL leases among them) until they end.
public func offThePool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try work() }) }.start()
    }
}

/// Runs `body` until it succeeds, at most `attempts` times, and throws the last error: for setting
/// up against a server just started (a catalog opened with a short connect timeout, which a loaded
/// machine can take longer than to hand out a first connection) where what is tested comes after.
/// A result for which `again` holds (an HTTP 503 from such a server) is tried again too, and the
/// last one is returned. It waits 0.5, 1, 2, 4 s between attempts, so that a stall of the machine
/// (a full test run on two cores has stalled connections for over 10 s) is outlasted rather than
/// retried through.
public func retrying<T>(
    _ attempts: Int = 5, again: (T) -> Bool = { _ in false },
    _ body: () async throws -> T
) async throws -> T {
    var last: Result<T, any Error> = .failure(CancellationError())
    for attempt in 0..<max(1, attempts) {
        if attempt > 0 { try await Task.sleep(for: .milliseconds(500 << min(attempt - 1, 3))) }
        do {
            let value = try await body()
            last = .success(value)
            if !again(value) { break }
        } catch {
            last = .failure(error)
        }
    }
    return try last.get()
}

/// Runs `body(i)` for each `i` in `0..<count` on a thread of its own, all at once (threads as
/// event loops or processes are, which may block), and returns when all of them have ended. The
/// caller is suspended meanwhile, not blocked: a stress test that waited on a thread of the pool
/// held it for minutes on a loaded machine, and the in-process servers answer on that pool.
public func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) async {
    await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
        let left = Mutex(count)
        for i in 0..<count {
            let t = Thread {
                body(i)
                let last = left.withLock { running in
                    running -= 1
                    return running == 0
                }
                if last { done.resume() }
            }
            t.start()
        }
    }
}
