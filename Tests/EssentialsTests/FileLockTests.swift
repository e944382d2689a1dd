import Essentials
import Foundation
import Synchronization
import Testing
import TrailMapTestSupport

@Suite(.computeThreads) struct FileLockTests {
    /// Threads take turns on one lock file, each deleting it as it lets go: never two inside at
    /// once (a waiter woken on a deleted file locks the path afresh), and no file is left.
    @Test func releaseDeletesTheFileAndTurnsStillExclude() throws {
        let tmp = TemporaryDirectory()
        let path = tmp.file("turns.lock")
        let inside = Atomic<Int>(0), overlaps = Atomic<Int>(0), failures = Atomic<Int>(0), turns = Atomic<Int>(0)
        let group = DispatchGroup()
        for _ in 0..<4 {
            group.enter()
            Thread {
                for _ in 0..<60 {
                    do {
                        let lock = try FileLock(path: path, wait: true)
                        if inside.add(1, ordering: .sequentiallyConsistent).newValue != 1 { overlaps.add(1, ordering: .relaxed) }
                        usleep(100)
                        turns.add(1, ordering: .relaxed)
                        inside.subtract(1, ordering: .sequentiallyConsistent)
                        lock.release()
                    } catch {
                        failures.add(1, ordering: .relaxed)
                    }
                }
                group.leave()
            }.start()
        }
        group.wait()
        #expect(failures.load(ordering: .relaxed) == 0)
        #expect(turns.load(ordering: .relaxed) == 240)
        #expect(overlaps.load(ordering: .relaxed) == 0, "two holders at once")
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    /// `unlock` keeps the file; a lock held is `busy` to another taker, free again once released.
    @Test func busyWhileHeldFreeOnceReleased() throws {
        let tmp = TemporaryDirectory()
        let path = tmp.file("one.lock")
        let lock = try FileLock(path: path, wait: false)
        #expect(throws: FileLock.Failure.busy) { _ = try FileLock(path: path, wait: false) }
        lock.unlock()
        #expect(FileManager.default.fileExists(atPath: path))
        let again = try FileLock(path: path, wait: false)
        again.release()
        #expect(!FileManager.default.fileExists(atPath: path))
        try FileLock(path: path, wait: false).release()
    }
}
