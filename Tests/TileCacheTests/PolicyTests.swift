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

    @Test func gdsfATileNoLongerExpectedGoesBackAmongTheOthers() {
        var p = GDSFPolicy<Int>()
        p.setCapacity(100_000)
        p.insert(1, cost: 1_000, priority: .demand)
        p.recordExpected(1)
        p.insert(2, cost: 1_000, priority: .demand)
        for _ in 0..<3 { p.recordHit(2) }
        p.recordUnexpected(1) // its session moved away from it
        p.recordUnexpected(2) // never expected: nothing changes
        #expect(p.evict() == 1, "no longer set apart, and read less")
        #expect(p.evict() == 2)
    }

    @Test func gdsfKeepsAnExpectedTileOverOneReadOftenLongAgo() {
        var p = GDSFPolicy<Int>()
        p.setCapacity(100_000)
        p.insert(1, cost: 1_000, priority: .demand)
        for _ in 0..<5 { p.recordHit(1) } // read often, long ago
        p.insert(2, cost: 20_000, priority: .demand)
        p.recordExpected(2) // a session asks for it again at its next step
        #expect(p.evict() == 1, "an expected tile stays, however large")
        #expect(p.evictCold() == nil, "an expected tile is not room for a prediction either")
        #expect(p.evict() == 2, "when nothing else is left, it goes")
    }

    @Test func gdsfExpectedTilesHoldAtMostTheirShare() {
        var p = GDSFPolicy<Int>(expectedShare: 0.5)
        p.setCapacity(10_000)
        p.insert(0, cost: 100, priority: .demand)
        for _ in 0..<5 { p.recordHit(0) }
        for k in 1...3 {
            p.insert(k, cost: 2_000, priority: .demand)
            p.recordExpected(k)
        }
        // 6,000 bytes expected against a share of 5,000: the longest expected went back among
        // the others, where it is the first victim (large and read once).
        #expect(p.evict() == 1)
        #expect(p.evict() == 0)
        #expect(p.evict() == 2)
    }

    /// Three expected keys of 2,000 bytes against a capacity of 10,000 (at a share of 0.5 the
    /// longest expected is sent back and, large and read once, evicted first) and a small key
    /// never expected (the victim when nothing was sent back).
    func sendBackAndEvict(_ p: inout GDSFPolicy<Int>, round: Int) -> Int? {
        let base = 10 * round
        p.insert(base + 5, cost: 100, priority: .demand)
        for k in 1...3 {
            p.insert(base + k, cost: 2_000, priority: .demand)
            p.recordExpected(base + k)
        }
        let victim = p.evict()
        for k in [1, 2, 3, 5] { p.remove(base + k) }
        return victim
    }

    @Test func gdsfExpectedShareGrowsWhenTilesSentBackAreAskedForAgain() {
        var p = GDSFPolicy<Int>(expectedShare: 0.5)
        p.setCapacity(10_000)
        var rounds = 0
        // Each round, the tile sent back (and evicted) is asked for again.
        while let victim = sendBackAndEvict(&p, round: rounds), victim == 10 * rounds + 1, rounds < 100 {
            p.insert(victim, cost: 2_000, priority: .demand)
            p.remove(victim)
            rounds += 1
        }
        #expect(p.share >= 0.6, "three expected tiles fit now")
        #expect(rounds > 1 && rounds < 100, "after some rounds (\(rounds)), nothing is sent back")

        // Without adapting, the share stays and the longest expected is always sent back.
        var fixed = GDSFPolicy<Int>(expectedShare: 0.5, adaptsExpectedShare: false)
        fixed.setCapacity(10_000)
        for round in 0..<rounds + 5 {
            #expect(sendBackAndEvict(&fixed, round: round) == 10 * round + 1)
            fixed.insert(10 * round + 1, cost: 2_000, priority: .demand)
            fixed.remove(10 * round + 1)
        }
        #expect(fixed.share == 0.5)
    }

    @Test func gdsfExpectedShareShrinksWhenOtherEvictedTilesAreAskedForAgain() {
        var p = GDSFPolicy<Int>(expectedShare: 0.5)
        p.setCapacity(10_000)
        p.insert(1, cost: 1_000, priority: .demand)
        p.recordExpected(1)
        // Tiles never expected, evicted and asked for again.
        for k in 100..<110 {
            p.insert(k, cost: 500, priority: .demand)
            #expect(p.evict() == k)
            p.insert(k, cost: 500, priority: .demand)
            p.remove(k)
        }
        #expect(p.share < 0.5)
        let lowered = p.share
        // An expected tile that fit the share at first is sent back once the share falls below
        // it: with another tile held, it is the one evicted (large and read once).
        var q0 = GDSFPolicy<Int>(expectedShare: 0.5)
        q0.setCapacity(10_000)
        q0.insert(1, cost: 4_900, priority: .demand)
        q0.recordExpected(1)
        var k = 100
        while q0.share >= 0.49, k < 200 {
            q0.insert(k, cost: 100, priority: .demand)
            #expect(q0.evict() == k, "an expected tile stays while it fits the share")
            q0.insert(k, cost: 100, priority: .demand)
            q0.remove(k)
            k += 1
        }
        #expect(q0.share < 0.49 && k > 105)
        q0.insert(2, cost: 100, priority: .demand)
        q0.recordHit(2)
        #expect(q0.evict() == 1)
        // A tile asked for the first time moves nothing.
        p.insert(500, cost: 500, priority: .demand)
        #expect(p.share == lowered)
        // Before any key was expected, nothing is remembered for the share.
        var q = GDSFPolicy<Int>(expectedShare: 0.5)
        q.setCapacity(10_000)
        q.insert(7, cost: 500, priority: .demand)
        #expect(q.evict() == 7)
        q.insert(7, cost: 500, priority: .demand)
        #expect(q.share == 0.5)
    }

    /// Keys leaving to fit a lower capacity (memory pressure) are not remembered for the share:
    /// asked for again, neither those evicted nor those sent back from the expected keys move it.
    /// The same keys evicted for room at the same capacity do.
    @Test func gdsfExpectedShareIgnoresWhatLeavesForALowerCapacity() {
        func filled() -> GDSFPolicy<Int> {
            var p = GDSFPolicy<Int>(expectedShare: 0.5)
            p.setCapacity(10_000)
            for k in 1...2 {
                p.insert(k, cost: 2_000, priority: .demand)
                p.recordExpected(k)
            }
            for k in 100..<110 { p.insert(k, cost: 500, priority: .demand) }
            return p
        }
        // Pressure: the capacity falls to 2,000, so both expected keys are sent back (the share
        // holds 1,000 bytes), and here every key is evicted.
        var p = filled()
        p.setCapacity(2_000)
        var left: [Int] = []
        while let victim = p.evict() { left.append(victim) }
        #expect(Set(left) == Set([1, 2] + Array(100..<110)))
        p.setCapacity(10_000)
        for k in left {
            p.insert(k, cost: k < 100 ? 2_000 : 500, priority: .demand)
            #expect(p.share == 0.5, "key \(k) came back after leaving for the lower capacity")
        }
        // At an unchanged capacity, keys evicted and asked for again move the share.
        var q = filled()
        q.setCapacity(10_000)
        for _ in 0..<10 {
            guard let victim = q.evict() else { break }
            q.insert(victim, cost: victim < 100 ? 2_000 : 500, priority: .demand)
        }
        #expect(q.share < 0.5)
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
