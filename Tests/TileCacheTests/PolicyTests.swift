import Testing
import TrailMapTestSupport
import TileCache

@Suite(.computeThreads) struct PolicyTests {
    @Test func lruEvictsTheLeastRecentlyUsed() {
        var p = LRUPolicy<Int>()
        for k in 0..<3 { p.insert(k, cost: 1, priority: .demand) }
        p.recordHit(0)
        #expect(p.evict() == 1)
        #expect(p.evict() == 2)
        #expect(p.evict() == 0)
        #expect(p.evict() == nil)
    }

    @Test func sieveKeepsVisitedKeys() {
        var p = SIEVEPolicy<Int>()
        for k in 0..<4 { p.insert(k, cost: 1, priority: .demand) }
        p.recordHit(0)
        p.recordHit(2)
        #expect(p.evict() == 1)
        #expect(p.evict() == 3)
        #expect(p.evict() == 0, "visited bits were cleared by the first pass")
    }

    @Test func s3fifoDropsOneHitKeysBeforeReusedOnes() {
        var p = S3FIFOPolicy<Int>(capacity: 10)
        for k in 0..<5 { p.insert(k, cost: 1, priority: .demand) }
        p.recordHit(0)
        p.recordHit(1)
        var evicted = [Int]()
        for _ in 0..<3 { if let k = p.evict() { evicted.append(k) } }
        #expect(evicted == [2, 3, 4])
    }

    @Test func s3fifoReadmitsGhostsIntoMain() {
        var p = S3FIFOPolicy<Int>(capacity: 10)
        p.insert(1, cost: 1, priority: .demand)
        #expect(p.evict() == 1)
        p.insert(1, cost: 1, priority: .demand) // remembered: goes to main
        p.insert(2, cost: 1, priority: .demand)
        #expect(p.evict() == 2, "the small queue is emptied first")
    }

    @Test(arguments: PolicyKind.allCases)
    func removeForgetsAKey(kind: PolicyKind) {
        var p = kind.make(capacity: 10, keyType: Int.self)
        for k in 0..<3 { p.insert(k, cost: 1, priority: .demand) }
        p.remove(1)
        var left = Set<Int>()
        while let k = p.evict() { left.insert(k) }
        #expect(left == [0, 2])
    }

    @Test(arguments: PolicyKind.allCases)
    func evictColdOnlyTakesUnreadKeys(kind: PolicyKind) {
        var p = kind.make(capacity: 10, keyType: Int.self)
        p.insert(0, cost: 1, priority: .demand)
        p.recordHit(0)
        #expect(p.evictCold() == nil)
        var q = kind.make(capacity: 10, keyType: Int.self)
        q.insert(1, cost: 1, priority: .prefetch)
        q.insert(0, cost: 1, priority: .demand)
        q.recordHit(0)
        #expect(q.evictCold() == 1)
    }

    @Test func gdsfEvictsALargeTileBeforeManySmallPopularOnes() {
        var p = GDSFPolicy<Int>()
        for k in 0..<10 { p.insert(k, cost: 1_000, priority: .demand) }
        p.insert(100, cost: 40_000, priority: .demand)
        p.recordHit(100) // read twice, and last
        for k in 0..<10 { p.recordHit(k) }
        #expect(p.evict() == 100, "40 KB read twice is worth less per byte than 1 KB read twice")
    }

    @Test func gdsfPrefersFrequentKeysAtEqualSize() {
        var p = GDSFPolicy<Int>()
        p.insert(0, cost: 100, priority: .demand)
        p.insert(1, cost: 100, priority: .demand)
        for _ in 0..<3 { p.recordHit(0) }
        p.insert(2, cost: 100, priority: .demand)
        #expect(p.evict() == 1, "of the keys read once, the older leaves first")
        #expect(p.evict() == 2)
        #expect(p.evict() == 0)
    }

    @Test func gdsfAgesOutKeysNotReadLately() {
        var p = GDSFPolicy<Int>()
        p.insert(-1, cost: 100, priority: .demand)
        for _ in 0..<5 { p.recordHit(-1) }
        var evicted = Set<Int>()
        // A stream of new keys, each read twice, through a policy holding ten.
        for k in 0..<200 {
            p.insert(k, cost: 100, priority: .demand)
            p.recordHit(k)
            if k >= 9, let v = p.evict() { evicted.insert(v) }
        }
        #expect(evicted.contains(-1), "the inflation lets newer keys overtake one read often long ago")
    }

    @Test func gdsfRemembersTheFrequencyOfRecentlyEvictedKeys() {
        var p = GDSFPolicy<Int>()
        p.insert(1, cost: 100, priority: .demand)
        for _ in 0..<3 { p.recordHit(1) }
        #expect(p.evict() == 1)
        p.insert(1, cost: 100, priority: .demand) // back: resumes four reads, plus this one
        p.insert(2, cost: 100, priority: .demand)
        #expect(p.evict() == 2)
    }

    @Test func gdsfPredictionsOutrankKeysAskedForOnceButNotKeysReadWhileHeld() {
        var p = GDSFPolicy<Int>()
        p.insert(1, cost: 100, priority: .demand)
        p.recordHit(1) // asked for again while held
        p.insert(2, cost: 100, priority: .prefetch) // a read to come
        p.insert(3, cost: 100, priority: .demand) // asked for once
        #expect(p.evict() == 3, "a key asked for once is the first victim")
        #expect(p.evict() == 2)
        #expect(p.evict() == 1)
    }

    @Test func gdsfATileReadWhileHeldOutlivesASmallerOneAskedForOnce() {
        var p = GDSFPolicy<Int>()
        p.insert(1, cost: 3_200, priority: .demand)
        p.recordHit(1)
        // 8 times smaller, never asked for again: by reads per byte alone (one per request) it
        // would stay, but the request that brought it in says little about another.
        p.insert(2, cost: 400, priority: .demand)
        #expect(p.evict() == 2)
        #expect(p.evict() == 1)
    }

    @Test func gdsfATileAskedForAgainAfterItLeftOutranksANewOne() {
        var p = GDSFPolicy<Int>()
        p.insert(1, cost: 100, priority: .demand)
        p.insert(2, cost: 100, priority: .prefetch)
        #expect(p.evict() == 1)
        #expect(p.evict() == 2, "an unused prediction")
        // Both come back on a demand: 1 was asked for before (its second request), 2 only predicted.
        p.insert(1, cost: 100, priority: .demand)
        p.insert(2, cost: 100, priority: .demand)
        p.insert(3, cost: 100, priority: .demand)
        p.recordHit(3)
        p.recordHit(3)
        #expect(p.evict() == 2, "asked for once")
        #expect(p.evict() == 1, "asked for twice: below a key asked for three times")
        #expect(p.evict() == 3)
    }

    @Test func gdsfCreditsPopularityAtAdmissionWithoutRememberingIt() {
        var p = GDSFPolicy<Int>(popularityWeight: 1)
        p.insert(1, cost: 100, priority: .demand, popularity: 3) // one read, three for its neighbourhood
        p.insert(2, cost: 100, priority: .demand)
        for _ in 0..<2 { p.recordHit(2) } // three reads
        #expect(p.evict() == 2, "three reads weigh less than one and a popular neighbourhood")
        #expect(p.evict() == 1)
        // Back after eviction: each resumes its own reads only (1 and 3), plus this one.
        p.insert(1, cost: 100, priority: .demand)
        p.insert(2, cost: 100, priority: .demand)
        #expect(p.evict() == 1)
    }

    @Test func gdsfKeepsPredictionsOfPopularNeighbourhoodsLonger() {
        var p = GDSFPolicy<Int>(popularityWeight: 1, prefetchPopularityWeight: 2)
        p.insert(1, cost: 100, priority: .prefetch, popularity: 1) // a read to come, two for its neighbourhood
        p.insert(2, cost: 100, priority: .demand, popularity: 1) // asked for once, one for its neighbourhood
        p.insert(3, cost: 100, priority: .prefetch)
        #expect(p.evict() == 3, "a prediction where nobody went leaves first")
        #expect(p.evict() == 2, "a prediction where many went outweighs a read there")
        #expect(p.evict() == 1)
    }
}
