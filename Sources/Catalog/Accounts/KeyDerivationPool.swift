import Foundation
import Synchronization

/// Runs password hashing on threads of its own, with a bounded queue.
///
/// A scrypt hash takes 32 MiB and about a tenth of a second of one core. Run on Swift's shared
/// concurrency pool (a thread per core) a burst of logins would stall every other request of the
/// server; run unbounded it would exhaust memory. Here at most `workers` hashes run at once, at
/// most `queueLimit` wait, and anything beyond is refused at once with `CatalogError.busy`
/// (the server answers 503 with Retry-After) instead of piling up.
public final class KeyDerivationPool: Sendable {
    private struct State {
        var jobs: [@Sendable () -> Void] = []
    }

    private let state = Mutex(State())
    private let ready = DispatchSemaphore(value: 0)
    /// Threads that hash.
    public let workers: Int
    /// Jobs that may wait for a thread.
    public let queueLimit: Int

    /// The process's pool: half the cores (1 to 4 threads), 32 waiting.
    public static let shared = KeyDerivationPool(
        workers: max(1, min(4, ProcessInfo.processInfo.activeProcessorCount / 2)), queueLimit: 32)

    /// A pool of `workers` threads (named `kdf-N` where the platform shows names) that live as long as the process.
    public init(workers: Int, queueLimit: Int) {
        self.workers = max(1, workers)
        self.queueLimit = max(0, queueLimit)
        for i in 0..<self.workers {
            let thread = Thread { [self] in self.serve() }
            thread.name = "kdf-\(i)"
            thread.start()
        }
    }

    /// Runs `work` on one of the pool's threads and returns its result; throws `.busy` at once,
    /// without running it, when the queue is full.
    public func run<T: Sendable>(_ work: @escaping @Sendable () throws(CatalogError) -> T) async throws(CatalogError) -> T {
        let result: Result<T, CatalogError> = await withCheckedContinuation { continuation in
            let job: @Sendable () -> Void = {
                do throws(CatalogError) { continuation.resume(returning: .success(try work())) } catch {
                    continuation.resume(returning: .failure(error))
                }
            }
            let queued = state.withLock { s -> Bool in
                guard s.jobs.count < queueLimit else { return false }
                s.jobs.append(job)
                return true
            }
            if queued {
                ready.signal()
            } else {
                continuation.resume(returning: .failure(.busy(retryAfter: 1)))
            }
        }
        return try result.get()
    }

    /// Jobs waiting for a thread now.
    public var waiting: Int { state.withLock { $0.jobs.count } }

    /// Whether the calling code runs on a thread of some `KeyDerivationPool`.
    public static var onPoolThread: Bool { Thread.current.threadDictionary[marker] != nil }
    private static let marker = "trailmap.key-derivation-pool"

    private func serve() {
        Thread.current.threadDictionary[Self.marker] = true
        while true {
            ready.wait()
            let job = state.withLock { s -> (@Sendable () -> Void)? in s.jobs.isEmpty ? nil : s.jobs.removeFirst() }
            job?()
        }
    }
}
