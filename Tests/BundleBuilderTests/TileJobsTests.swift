import Foundation
import Synchronization
import Testing
import TileGeometry
import TileStore
import TrailMapTestSupport
@testable import BundleBuilder

/// Jobs on threads of their own, their tiles written by the calling thread as they come.
@Suite(.computeThreads) struct TileJobsTests {
    let dir = TemporaryDirectory()

    /// A tile of job `k` and its bytes: distinct per job and per tile.
    private static func tile(job k: Int, _ i: Int) -> (TileID, [UInt8]) {
        let t = TileID(z: 10, x: k, y: i)!
        return (t, [UInt8(k % 251), UInt8(i)] + withUnsafeBytes(of: k) { Array($0) })
    }

    @Test func everyJobsTilesAreWrittenOnceAndCounted() throws {
        let path = dir.file("jobs.mbtiles")
        let writer = try BundleWriter(path: path)
        let last = Mutex<(done: Int, stored: Int)>((0, 0))
        try TileJobs(count: 120, threads: 3).run(into: writer, progress: { done, stored in last.withLock { $0 = (done, stored) } }) {
            context throws(BuildError) in
            while let k = context.next() {
                for i in 0..<5 {
                    let (t, data) = Self.tile(job: k, i)
                    try context.put(t, data)
                }
                context.considered(7)
            }
        }
        #expect(last.withLock { $0.done } == 120 * 7, "the last report counts every job")
        #expect(last.withLock { $0.stored } == 600)
        _ = try writer.finish(metadata: BundleMetadata(name: "j", bounds: .world, minZoom: 10, maxZoom: 10))
        var expected = [TileID: Data]()
        for k in 0..<120 {
            for i in 0..<5 {
                let (t, data) = Self.tile(job: k, i)
                expected[t] = Data(data)
            }
        }
        #expect(try TestBundle.tiles(path) == expected)
    }

    /// The job's own error, not the `.cancelled` the other thread's `put` meets after it.
    @Test func aFailingJobIsThrownAndStopsTheRest() throws {
        let writer = try BundleWriter(path: dir.file("failing.mbtiles"))
        defer { writer.abandon() }
        #expect {
            try TileJobs(count: 10_000, threads: 2).run(into: writer, progress: { _, _ in }) { context throws(BuildError) in
                while let k = context.next() {
                    if k == 3 { throw .zoomTooHigh(99) }
                    let (t, data) = Self.tile(job: k % 1000, k / 1000)
                    try context.put(t, data)
                }
            }
        } throws: { error in
            guard case .zoomTooHigh(99) = error as? BuildError else { return false }
            return true
        }
    }

    @Test func noJobsWriteNothing() throws {
        let writer = try BundleWriter(path: dir.file("none.mbtiles"))
        defer { writer.abandon() }
        var reports = 0
        try TileJobs(count: 0, threads: 2).run(into: writer, progress: { _, _ in reports += 1 }) { _ throws(BuildError) in
            Issue.record("no thread starts without jobs")
        }
        #expect(writer.stats.tiles == 0 && reports == 0)
    }
}
