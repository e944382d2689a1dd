import Testing
@testable import TileCache

/// The bounded set of recent keys forgets the oldest first, and a key forgotten on purpose and
/// added again is kept as long as one added then.
@Suite struct RecentKeysTests {
    @Test func theOldestIsForgottenPastTheCapacity() {
        var recent = RecentKeys(capacity: 3)
        for x in 0..<5 {
            let added = recent.insert(key(x))
            #expect(added)
        }
        #expect(!recent.contains(key(0)) && !recent.contains(key(1)))
        #expect((2..<5).allSatisfy { recent.contains(key($0)) })
        #expect(recent.count == 3)
        let again = recent.insert(key(4))
        #expect(!again, "a key held is not added twice")
    }

    @Test func aKeyRemovedAndAddedAgainIsKeptAsLongAsItsNewPlace() {
        var recent = RecentKeys(capacity: 3)
        recent.insert(key(0))
        recent.insert(key(1))
        let removed = recent.remove(key(0)), removedTwice = recent.remove(key(0))
        #expect(removed && !removedTwice)
        recent.insert(key(0)) // slots: 0 (its old place), 1, 0
        // The slot that held key 0 first comes round: key 0 stays, held by its new slot.
        recent.insert(key(3))
        #expect(recent.contains(key(0)), "forgotten by its old slot")
        #expect(recent.contains(key(1)) && recent.contains(key(3)))
        #expect(recent.count == 3)
        recent.insert(key(4))
        #expect(!recent.contains(key(1)) && recent.contains(key(0)))
        recent.insert(key(5))
        #expect(!recent.contains(key(0)), "forgotten when its new slot comes round")
        #expect(recent.count == 3)
    }
}
