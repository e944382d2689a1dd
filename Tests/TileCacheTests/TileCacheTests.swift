import Foundation
import NIOCore
import Synchronization
import Testing
import TrailMapTestSupport
import TileCache
import TileGeometry

@Suite(.computeThreads) struct TileCacheTests {
    @Test func aCachedTileKeepsExactlyItsBytes() {
        // NIO's own buffers round up to a power of two: 20,000 bytes would hold 32,768.
        let tile = sampleTile(20_000)
        #expect(tile.buffer.capacity == 20_000 && tile.buffer.readableBytes == 20_000)
        #expect(tile.bytes == [UInt8](repeating: 7, count: 20_000))
        #expect(CachedTile(bytes: [UInt8](), etag: "\"e\"").buffer.readableBytes == 0)
    }

    @Test func hitsAfterAMissAndCountsCostHonestly() throws {
        let cache = TileCache(budget: 1 << 20)
        let t = sampleTile(1000)
        #expect(try cache.tile(key(1)) { t } == t)
        #expect(
            try cache.tile(key(1)) {
                Issue.record("loaded twice"); return nil
            } == t)
        let s = cache.statistics
        #expect(s.hits == 1 && s.misses == 1 && s.loads == 1 && s.entries == 1)
        #expect(s.bytes == t.cost && t.cost >= 1000 + CachedTile.entryOverhead)
    }

    @Test func missingTilesAreNotCached() throws {
        let cache = TileCache(budget: 1 << 20)
        #expect(try cache.tile(key(1)) { nil } == nil)
        #expect(cache.statistics.entries == 0)
    }

    @Test func loadErrorsReachTheCaller() {
        struct Broken: Error {}
        let cache = TileCache(budget: 1 << 20)
        #expect(throws: Broken.self) { try cache.tile(key(1)) { throw Broken() } }
        #expect(cache.statistics.entries == 0)
    }

    @Test(arguments: PolicyKind.allCases)
    func neverExceedsTheBudget(policy: PolicyKind) throws {
        let budget = 200_000
        let cache = TileCache(budget: budget, policy: policy)
        var g = SystemRandomNumberGenerator()
        for _ in 0..<5000 {
            let k = key(Int.random(in: 0..<500, using: &g))
            _ = try cache.tile(k) { sampleTile(Int.random(in: 0..<4000, using: &g)) }
            let s = cache.statistics
            #expect(s.bytes + s.reservedBytes <= budget)
        }
        #expect(cache.statistics.evictions[.capacity, default: 0] > 0)
    }

    @Test func aTileLargerThanTheBudgetIsServedButNotKept() throws {
        let cache = TileCache(budget: 10_000)
        #expect(try cache.tile(key(1)) { sampleTile(20_000) }?.bytes.count == 20_000)
        #expect(cache.statistics.entries == 0)
    }

    @Test(arguments: PolicyKind.allCases)
    func budgetHoldsUnderConcurrentLoad(policy: PolicyKind) async {
        let budget = 300_000
        let cache = TileCache(budget: budget, policy: policy)
        let violations = Atomic<Int>(0)
        await onThreads(12) { i in
            var g = SystemRandomNumberGenerator()
            for n in 0..<3000 {
                let k = key(Int.random(in: 0..<800, using: &g), bundle: UInt32(i % 3))
                switch Int.random(in: 0..<100, using: &g) {
                case 0..<80:
                    _ = try? cache.tile(k) { sampleTile(Int.random(in: 0..<3000, using: &g)) }
                case 80..<90:
                    cache.prefetch(k) { sampleTile(Int.random(in: 0..<3000, using: &g)) }
                case 90..<94:
                    if cache.reserve(20_000) { cache.release(20_000) }
                case 94..<97:
                    cache.setFraction([0.3, 0.6, 1][n % 3])
                case 97..<99:
                    cache.removeAll(bundle: UInt32(i % 3))
                default:
                    cache.removeAll()
                }
                let s = cache.statistics
                if s.bytes + s.reservedBytes > budget || s.bytes < 0 { violations.add(1, ordering: .relaxed) }
            }
        }
        #expect(violations.load(ordering: .relaxed) == 0)
        let s = cache.statistics
        #expect(s.bytes + s.reservedBytes <= budget)
        #expect(s.hits + s.misses > 0)
    }

    @Test func reservationsTakeRoomFromTiles() throws {
        let cache = TileCache(budget: 100_000)
        for x in 0..<40 { _ = try cache.tile(key(x)) { sampleTile(2000) } }
        #expect(cache.reserve(60_000))
        let s = cache.statistics
        #expect(s.reservedBytes == 60_000 && s.bytes <= 40_000)
        #expect(!cache.reserve(50_000), "more than the budget cannot be reserved")
        cache.release(60_000)
        #expect(cache.statistics.capacity == 100_000)
    }

    @Test(arguments: PolicyKind.allCases)
    func prefetchNeverPushesOutTilesInUse(policy: PolicyKind) throws {
        let t = sampleTile(1000)
        let cache = TileCache(budget: 10 * t.cost, policy: policy)
        for x in 0..<10 { _ = try cache.tile(key(x)) { t } }
        for x in 0..<10 { _ = try cache.tile(key(x)) { t } } // every tile now read twice: hot
        for x in 100..<120 { cache.prefetch(key(x)) { t } }
        for x in 0..<10 { #expect(cache.contains(key(x)), "hot tile \(x) was pushed out by prefetch") }
        let s = cache.statistics
        #expect(s.prefetchesIssued == 20 && s.prefetchesRejected == 20)
    }

    @Test func prefetchedTilesCountAsUsedWhenRead() throws {
        let cache = TileCache(budget: 1 << 20)
        #expect(cache.prefetch(key(1)) { sampleTile(10) })
        #expect(!cache.prefetch(key(1)) { sampleTile(10) }, "already held")
        _ = try cache.tile(key(1)) { nil }
        let s = cache.statistics
        #expect(s.prefetchesUsed == 1 && s.hits == 1 && s.misses == 0)
    }

    @Test func gdsfKeepsSmallPopularTilesOverALargeRecentOne() throws {
        let small = sampleTile(500), large = sampleTile(20_000)
        let cache = TileCache(budget: 10 * small.cost + large.cost + 100, policy: .gdsf)
        for x in 0..<10 { _ = try cache.tile(key(x)) { small } }
        _ = try cache.tile(key(100)) { large }
        for x in 0..<10 { _ = try cache.tile(key(x)) { small } }
        _ = try cache.tile(key(100)) { large } // the large tile is read as often, and last
        _ = try cache.tile(key(200)) { small } // needs room
        #expect(!cache.contains(key(100)))
        for x in 0..<10 { #expect(cache.contains(key(x))) }
        #expect(cache.contains(key(200)))
    }

    @Test func gdsfDropsALargeTileReadOnceBeforeSmallOnesReadOften() throws {
        // Small tiles read often, then a large one read once: GDSF's value per byte evicts it.
        let small = sampleTile(500), large = sampleTile(10_000)
        let cache = TileCache(budget: 20 * small.cost + large.cost + 100, policy: .gdsf)
        for _ in 0..<5 { for x in 0..<20 { _ = try cache.tile(key(x)) { small } } }
        _ = try cache.tile(key(100)) { large }
        #expect(cache.missing([key(100), key(102)]) == [key(102)])
        _ = try cache.tile(key(200)) { small }
        #expect(!cache.contains(key(100)))
    }

    @Test func gdsfBudgetHoldsUnderConcurrentLoadWithMixedSizes() async {
        let budget = 400_000
        let cache = TileCache(budget: budget, policy: .gdsf)
        let violations = Atomic<Int>(0)
        await onThreads(12) { i in
            var g = SystemRandomNumberGenerator()
            for n in 0..<3000 {
                let k = key(Int.random(in: 0..<800, using: &g), bundle: UInt32(i % 3))
                // Sizes from 100 B to 60 KB, as relief tiles vary, so one admission may evict many.
                let size =
                    Int.random(in: 0..<10, using: &g) == 0
                    ? Int.random(in: 20_000..<60_000, using: &g)
                    : Int.random(in: 100..<3_000, using: &g)
                switch Int.random(in: 0..<100, using: &g) {
                case 0..<80:
                    _ = try? cache.tile(k) { sampleTile(size) }
                case 80..<87:
                    cache.prefetch(k) { sampleTile(size) }
                case 87..<90:
                    // A repeating session's step: chances given to tiles near, taken back from others.
                    var near = [TileKey]()
                    for _ in 0..<4 { near.append(key(Int.random(in: 0..<800, using: &g), bundle: UInt32(i % 3))) }
                    let prediction = PrefetchPredictor.Prediction(
                        tiles: Array(near.prefix(2)), chances: near.map { ($0, n % 2 == 0 ? 0.5 : -0.5) })
                    for p in cache.plan(prediction, after: k) { cache.prefetch(p) { sampleTile(size) } }
                case 90..<94:
                    if cache.reserve(50_000) { cache.release(50_000) }
                case 94..<97:
                    cache.setFraction([0.3, 0.6, 1][n % 3])
                case 97..<99:
                    cache.removeAll(bundle: UInt32(i % 3))
                default:
                    cache.removeAll()
                }
                let s = cache.statistics
                if s.bytes + s.reservedBytes > budget || s.bytes < 0 { violations.add(1, ordering: .relaxed) }
            }
        }
        #expect(violations.load(ordering: .relaxed) == 0)
        let s = cache.statistics
        #expect(s.bytes + s.reservedBytes <= budget)
        #expect(s.evictions[.capacity, default: 0] > 0)
    }
}
