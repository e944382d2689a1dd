import Foundation
import Testing

/// A few threads of the tests' own, instead of Swift's shared cooperative pool (one thread per
/// core: two here). Every test target runs in one process, and a synchronous test body holds its
/// pool thread until it ends (waiting for a `trailmap` process or a browser, or computing for
/// seconds). The servers that other suites start in the process answer on that pool: behind a
/// queue of such tests they answered minutes late, and their clients timed out. Tests that wait on
/// processes run on `blocking`, tests that compute on `compute`; the pool is left to the servers
/// and the tests that talk to them.
public final class TestThreads: TaskExecutor, @unchecked Sendable {
    /// For suites whose tests block a thread: at most three of them run at once.
    public static let blocking = TestThreads(width: 3, name: "blocking-tests")
    /// For suites whose tests compute for long (builds, codecs, rendering in the test process).
    public static let compute = TestThreads(width: 2, name: "compute-tests")

    private let condition = NSCondition()
    /// The jobs waiting, first in first out (under `condition`).
    private var jobs = JobRing()

    init(width: Int, name: String) {
        for i in 0..<max(1, width) {
            let thread = Thread { [self] in work() }
            thread.name = "\(name)-\(i)"
            thread.start()
        }
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.push(job)
        condition.signal()
        condition.unlock()
    }

    private func work() {
        let executor = asUnownedTaskExecutor()
        while true {
            condition.lock()
            var job = jobs.pop()
            while job == nil {
                condition.wait()
                job = jobs.pop()
            }
            condition.unlock()
            job!.runSynchronously(on: executor)
        }
    }
}

/// A queue of jobs in a ring that doubles when full: a push and a pop take constant time, and the
/// storage is the most jobs ever waiting at once.
struct JobRing {
    private var slots = [UnownedJob?](repeating: nil, count: 64)
    private var head = 0
    private(set) var count = 0

    mutating func push(_ job: UnownedJob) {
        if count == slots.count {
            slots = (0..<count).map { slots[(head + $0) % count] } + [UnownedJob?](repeating: nil, count: count)
            head = 0
        }
        slots[(head + count) % slots.count] = job
        count += 1
    }

    /// The oldest job, taken out; nil when none waits.
    mutating func pop() -> UnownedJob? {
        guard count > 0 else { return nil }
        let job = slots[head]
        slots[head] = nil
        head = (head + 1) % slots.count
        count -= 1
        return job
    }
}

/// Runs each test of a suite (and the child tasks it starts) on `TestThreads` instead of the
/// cooperative pool.
public struct TestThreadsTrait: SuiteTrait, TestTrait, TestScoping {
    let threads: TestThreads

    public var isRecursive: Bool { true }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        _ = PoolStallWatch.started
        guard testCase != nil else { return try await function() }
        try await withTaskExecutorPreference(threads) { try await function() }
    }
}

extension Trait where Self == TestThreadsTrait {
    /// The suite's tests block threads (processes, browsers, sleeps): they run on
    /// `TestThreads.blocking`, not the shared pool.
    public static var blockingThreads: Self { TestThreadsTrait(threads: .blocking) }

    /// The suite's tests compute for long: they run on `TestThreads.compute`, not the shared pool.
    public static var computeThreads: Self { TestThreadsTrait(threads: .compute) }
}

/// Runs synchronous work that computes for long (a fixture writing its bundles, say) on
/// `TestThreads.compute` and awaits it, so that a suite whose servers answer on the shared pool
/// does not hold a thread of that pool meanwhile.
public func computed<T>(_ work: () throws -> T) async throws -> T {
    try await withTaskExecutorPreference(TestThreads.compute) { try work() }
}
