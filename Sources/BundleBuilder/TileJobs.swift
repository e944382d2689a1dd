import Foundation
import Synchronization
import TileGeometry
import TileStore

/// Jobs rendered on threads of their own while the calling thread writes what they make: each
/// thread takes the next job in turn and queues the job's tiles (`TileQueue`, bounded, so memory
/// stays bounded when the writer falls behind); the writer adds them in batches, one transaction
/// each, rows in order. The first failure, of a job or of a write, stops every thread and is
/// thrown once all have stopped. Terrain and trails-only builds render through it.
final class TileJobs: Sendable {
    /// What a thread sees: the next job to do, where its tiles go, and how to count a job done.
    struct Context: Sendable {
        fileprivate let jobs: TileJobs

        /// The next job's index, or nil when none is left or the jobs were stopped.
        func next() -> Int? {
            guard !jobs.queue.isCancelled else { return nil }
            let k = jobs.taken.add(1, ordering: .relaxed).oldValue
            return k < jobs.count ? k : nil
        }

        /// Queues an encoded tile for the writer; throws `.cancelled` once the jobs were stopped.
        func put(_ tile: TileID, _ data: [UInt8]) throws(BuildError) {
            guard jobs.queue.push(.tile(tile, data)) else { throw .cancelled }
        }

        /// Counts `tiles` more tiles considered (for progress), when a job is done.
        func considered(_ tiles: Int) { jobs.done.add(tiles, ordering: .relaxed) }
    }

    fileprivate let count: Int
    private let threads: Int
    fileprivate let queue: TileQueue
    fileprivate let taken = Atomic<Int>(0)
    fileprivate let done = Atomic<Int>(0)
    private let failure = Mutex<BuildError?>(nil)

    /// `count` jobs on at most `threads` threads (never more threads than jobs).
    init(count: Int, threads: Int) {
        self.count = count
        self.threads = max(0, min(threads, count))
        queue = TileQueue(capacity: 16 * max(1, threads), producers: self.threads)
    }

    /// Starts the threads, each running `thread` (which takes jobs from its context until there
    /// are none), writes their tiles with `writer` on the calling thread, and returns once every
    /// thread has stopped and every tile is written. `progress` (on the calling thread, about
    /// every 100 ms and at the end) gets the tiles considered so far and the tiles stored.
    func run(
        into writer: BundleWriter, progress: (_ done: Int, _ stored: Int) -> Void,
        thread: @escaping @Sendable (Context) throws(BuildError) -> Void
    ) throws(BuildError) {
        guard threads > 0 else { return }
        let stopped = DispatchGroup()
        for _ in 0..<threads {
            stopped.enter()
            let t = Thread { [self] in
                defer {
                    queue.producerFinished()
                    stopped.leave()
                }
                do throws(BuildError) { try thread(Context(jobs: self)) } catch { fail(error) }
            }
            t.stackSize = 4 << 20
            t.start()
        }
        queue.drain { batch in
            var tiles = [(tile: TileID, data: [UInt8])]()
            tiles.reserveCapacity(batch.count)
            for case let .tile(t, data) in batch { tiles.append((t, data)) }
            guard !tiles.isEmpty, failure.withLock({ $0 == nil }) else { return }
            tiles.sort { ($0.tile.z, $0.tile.y, $0.tile.x) < ($1.tile.z, $1.tile.y, $1.tile.x) }
            do throws(TileStoreError) { try writer.add(tiles) } catch { fail(.store(error)) }
        } report: {
            progress(done.load(ordering: .relaxed), writer.stats.tiles)
        }
        stopped.wait()
        if let error = failure.withLock({ $0 }) { throw error }
        progress(done.load(ordering: .relaxed), writer.stats.tiles)
    }

    /// Keeps the first failure and stops the threads.
    private func fail(_ error: BuildError) {
        failure.withLock { if $0 == nil { $0 = error } }
        queue.cancel()
    }
}
