import Foundation

/// Reports, on standard error, each time Swift's shared concurrency pool took more than two
/// seconds to start a trivial task: the in-process servers of the tests answer on that pool, and a
/// test that blocks its threads makes their clients time out. The report, among the test
/// output, shows which tests ran while the pool was held. Started by the first test that runs
/// on `TestThreads`; checks four times a second.
enum PoolStallWatch {
    static let started: Void = {
        let thread = Thread {
            while true {
                let start = ContinuousClock.now
                let ran = DispatchSemaphore(value: 0)
                Task.detached { ran.signal() }
                ran.wait()
                let waited = ContinuousClock.now - start
                if waited > .seconds(2) {
                    let seconds = Double(waited.components.seconds) + Double(waited.components.attoseconds) * 1e-18
                    let line = "[\(Date())] the shared concurrency pool started no task for \(String(format: "%.1f", seconds)) s\n"
                    FileHandle.standardError.write(Data(line.utf8))
                }
                Thread.sleep(forTimeInterval: 0.25)
            }
        }
        thread.name = "pool-stall-watch"
        thread.start()
    }()
}
