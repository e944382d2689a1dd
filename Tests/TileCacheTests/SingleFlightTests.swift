import Foundation
import Synchronization
import Testing
import TrailMapTestSupport
import TileCache

@Suite(.computeThreads) struct SingleFlightTests {
    @Test func concurrentMissesOfOneTileReadOnce() async {
        let cache = TileCache(budget: 1 << 20)
        let reads = Atomic<Int>(0)
        let results = Mutex<[CachedTile?]>([])
        let waiters = 8
        await onThreads(waiters) { _ in
            let t = try? cache.tile(key(5)) {
                reads.add(1, ordering: .relaxed)
                // Hold the read until every other thread has joined it (bounded, not timed).
                for _ in 0..<2000 where cache.statistics.joins < waiters - 1 { usleep(1000) }
                return sampleTile(100)
            }
            results.withLock { $0.append(t) }
        }
        #expect(reads.load(ordering: .relaxed) == 1)
        let s = cache.statistics
        #expect(s.joins == waiters - 1 && s.loads == 1 && s.misses == waiters)
        #expect(results.withLock { $0.allSatisfy { $0 == sampleTile(100) } })
    }

    @Test func waitersGetTheLeadersError() async {
        struct Broken: Error {}
        let cache = TileCache(budget: 1 << 20)
        let failures = Atomic<Int>(0)
        await onThreads(4) { _ in
            do {
                _ = try cache.tile(key(1)) {
                    for _ in 0..<2000 where cache.statistics.joins < 3 { usleep(1000) }
                    throw Broken()
                }
            } catch {
                failures.add(1, ordering: .relaxed)
            }
        }
        #expect(failures.load(ordering: .relaxed) == 4)
        #expect(cache.statistics.loads == 1)
    }
}
