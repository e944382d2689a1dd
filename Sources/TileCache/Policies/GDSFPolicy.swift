import NIOCore

/// Greedy-Dual-Size-Frequency (Cherkasova 1998): each key has a priority
/// `L + frequency / size`, the victim is the key of lowest priority, and `L` (the inflation) rises
/// to each victim's priority, so keys not read for a while age out. A byte budget thus goes to
/// the tiles read most per byte: one large tile read once leaves before many small tiles read
/// often. Keys evicted recently are remembered (keys and counts only, bounded) so that a tile
/// coming back resumes its frequency. A demanded key enters with `demandWeight` of a read (the
/// request that brought it in says less about a next one than a read while held does: most tiles
/// asked for once are not asked for again), a prefetched key with `prefetchWeight` (a prediction
/// is of a read to come), both at the current `L`, so a key never read while held is an early
/// victim; room for a prediction is made only by evicting the lowest of the keys never read
/// since they came in. All operations are
/// O(log n) on indexed binary heaps (keys never read since they came in, and the others).
///
/// A key with a chance of being asked for at a session's next step (`setChance`, summed over
/// sessions) is set apart, by chance per byte: it leaves after every other key, the least
/// likely per byte first, and a prediction with a chance displaces only keys without one or less
/// likely per byte (`evict(below:)`). Its chance falling to nothing, it goes back among the
/// others at today's `L`.
///
/// A key coming in through `insert(_:cost:priority:popularity:)` is also credited
/// `popularityWeight` reads (`prefetchPopularityWeight` for a prediction) per request its
/// neighbourhood (the cache counts 4x4 tiles of one zoom, all clients, decayed) drew per tile
/// lately: where many sessions go (a popular place), a new tile is likely to be asked for again
/// by the next session there, and a prediction there to be used. The credit is not remembered
/// when the key is evicted (only its own reads are).
public struct GDSFPolicy<Key: Hashable & Sendable>: EvictionPolicy {
    /// Keys never read since they came in, and the others, each by priority.
    private var cold = PriorityHeap()
    private var warm = PriorityHeap()
    /// Keys a session is likely to ask for at its next step, by chance per byte (least first);
    /// they leave after every other key, the least likely per byte first.
    private var likely = PriorityHeap()
    private var isLikely: [Bool] = []
    private var likelyBytes = 0.0
    public var likelyHolding: Int? { Int(max(0, likelyBytes).rounded()) }
    private var keys: [Key?] = []
    private var sizes: [Double] = []
    /// Reads credited to the key (a demand insertion `demandWeight`, a prefetch `prefetchWeight`,
    /// each read while held one), with its neighbourhood's popularity when it came in.
    private var frequency: [Double] = []
    /// The part of `frequency` owed to the neighbourhood's popularity (not remembered at eviction).
    private var bonus: [Double] = []
    /// Whether the key came in on a demand (not a prediction).
    private var demanded: [Bool] = []
    /// Reads since the key came in (0: cold, for `evictCold`).
    private var reads: [UInt32] = []
    /// A read key's priority since its last read, when the warm heap still holds an older one:
    /// a read only notes it, and the heap takes it when the key reaches the heap's top (priorities
    /// only rise, so the top whose priority is current is the true minimum, as if every read had
    /// updated the heap).
    private var due: [Double] = []
    private var stale: [Bool] = []
    private var free: [Int32] = []
    private var slots: [Key: Int32] = [:]
    private var ghost = GhostCounts<Key>()
    private var inflation = 0.0
    /// The weight of a demand admission (the request that brought the key in), against 1 for
    /// each read while held.
    public let demandWeight: Double
    /// The weight of a prefetch's admission, against 1 for each read while held.
    public let prefetchWeight: Double

    /// Reads credited to a key per request its neighbourhood drew per tile lately (see
    /// `insert(_:cost:priority:popularity:)`), for a demanded key and for a predicted one.
    public let popularityWeight: Double
    public let prefetchPopularityWeight: Double

    public init(
        demandWeight: Double = 0.1, prefetchWeight: Double = 1, popularityWeight: Double = 1, prefetchPopularityWeight: Double = 2
    ) {
        self.demandWeight = max(0, demandWeight)
        self.prefetchWeight = prefetchWeight
        self.popularityWeight = max(0, popularityWeight)
        self.prefetchPopularityWeight = max(0, prefetchPopularityWeight)
    }

    public var name: String { "gdsf" }

    /// The order does not depend on the capacity (the cache evicts down to it).
    public mutating func setCapacity(_ bytes: Int) {}

    @_specialize(where Key == TileKey)
    public mutating func recordHit(_ key: Key) {
        guard let slot = slots[key] else { return }
        let s = Int(slot)
        frequency[s] += 1
        let priority = inflation + frequency[s] / sizes[s]
        if isLikely[s] {
            // Kept by its chance until that falls to nothing.
        } else if reads[s] == 0 {
            cold.remove(slot)
            warm.insert(slot, priority: priority)
        } else {
            due[s] = priority
            stale[s] = true
        }
        reads[s] &+= 1
    }

    public mutating func insert(_ key: Key, cost: Int, priority: AdmissionPriority) {
        insert(key, cost: cost, priority: priority, popularity: 0)
    }

    /// A key became resident in a neighbourhood whose tiles drew `popularity` requests each
    /// lately: it is credited `popularityWeight` reads per such request, so a tile where many
    /// sessions go outlives one of the same size and reads where few do.
    @_specialize(where Key == TileKey)
    public mutating func insert(_ key: Key, cost: Int, priority: AdmissionPriority, popularity: Double) {
        remove(key)
        let remembered = ghost.remove(key) ?? 0
        let extra = (priority == .demand ? popularityWeight : prefetchPopularityWeight) * max(0, popularity)
        let f = (priority == .demand ? demandWeight + remembered : prefetchWeight) + extra
        let size = Double(max(1, cost))
        let slot: Int32
        if let s = free.popLast() {
            slot = s
            keys[Int(s)] = key
            sizes[Int(s)] = size
            frequency[Int(s)] = f
            bonus[Int(s)] = extra
            demanded[Int(s)] = priority == .demand
            reads[Int(s)] = 0
            isLikely[Int(s)] = false
            stale[Int(s)] = false
        } else {
            slot = Int32(keys.count)
            keys.append(key)
            sizes.append(size)
            frequency.append(f)
            bonus.append(extra)
            demanded.append(priority == .demand)
            reads.append(0)
            isLikely.append(false)
            due.append(0)
            stale.append(false)
        }
        slots[key] = slot
        cold.insert(slot, priority: inflation + f / size)
    }

    @_specialize(where Key == TileKey)
    public mutating func remove(_ key: Key) {
        guard let slot = slots.removeValue(forKey: key) else { return }
        if isLikely[Int(slot)] {
            unlikely(slot)
        } else if reads[Int(slot)] == 0 {
            cold.remove(slot)
        } else {
            warm.remove(slot)
            stale[Int(slot)] = false
        }
        release(slot)
    }

    @_specialize(where Key == TileKey)
    public mutating func evict() -> Key? {
        refreshWarm()
        let useCold: Bool
        switch (cold.minPriority, warm.minPriority) {
        case (nil, nil):
            // Only likely keys are left: the least likely per byte goes.
            guard let slot = likely.minSlot else { return nil }
            unlikely(slot)
            return forget(slot)
        case (_?, nil): useCold = true
        case (nil, _?): useCold = false
        case let (c?, w?): useCold = c <= w
        }
        guard let (slot, priority) = useCold ? cold.popMin() : warm.popMin() else { return nil }
        inflation = max(inflation, priority)
        return forget(slot)
    }

    @_specialize(where Key == TileKey)
    public mutating func setChance(_ key: Key, _ value: Double) {
        guard let slot = slots[key] else { return }
        let s = Int(slot)
        if value > Self.leastChance {
            if isLikely[s] {
                likely.update(slot, priority: value / sizes[s])
                return
            }
            if reads[s] == 0 {
                cold.remove(slot)
            } else {
                warm.remove(slot)
                stale[s] = false
            }
            isLikely[s] = true
            likelyBytes += sizes[s]
            likely.insert(slot, priority: value / sizes[s])
        } else if isLikely[s] {
            unlikely(slot)
            let priority = inflation + frequency[s] / sizes[s]
            if reads[s] == 0 { cold.insert(slot, priority: priority) } else { warm.insert(slot, priority: priority) }
        }
    }

    /// Below this a chance is none.
    static var leastChance: Double { 1e-6 }

    /// Room for a prediction worth `score` per byte: any key without a chance (the cold first,
    /// then the others by priority), else the least likely per byte if it is worth less.
    @_specialize(where Key == TileKey)
    public mutating func evict(below score: Double) -> Key? {
        if cold.count > 0 || warm.count > 0 { return evict() }
        guard let p = likely.minPriority, p < score, let slot = likely.minSlot else { return nil }
        unlikely(slot)
        return forget(slot)
    }

    /// Takes a slot out of the likely keys.
    private mutating func unlikely(_ slot: Int32) {
        likely.remove(slot)
        isLikely[Int(slot)] = false
        likelyBytes -= sizes[Int(slot)]
        if likely.count == 0 { likelyBytes = 0 }
    }

    /// The cold key of lowest priority, even when a read key has a lower one.
    @_specialize(where Key == TileKey)
    public mutating func evictCold() -> Key? {
        guard let (slot, priority) = cold.popMin() else { return nil }
        refreshWarm()
        inflation = max(inflation, min(priority, warm.minPriority ?? priority))
        return forget(slot)
    }

    /// Gives the warm heap's top its current priority until the top's is current.
    private mutating func refreshWarm() {
        while let slot = warm.minSlot, stale[Int(slot)] {
            stale[Int(slot)] = false
            warm.update(slot, priority: due[Int(slot)])
        }
    }

    /// Drops a slot evicted for room, remembering its key's frequency.
    private mutating func forget(_ slot: Int32) -> Key? {
        guard let key = keys[Int(slot)] else { return nil }
        slots[key] = nil
        // Its reads (while held, and remembered), and the demand that brought it in as a whole
        // one: a key asked for again after it left was asked for twice.
        let s = Int(slot)
        let f = (frequency[s] - bonus[s] - (demanded[s] ? demandWeight : prefetchWeight)).rounded() + (demanded[s] ? 1 : 0)
        if f >= 1 { ghost.insert(key, count: f, limit: max(64, slots.count)) }
        release(slot)
        return key
    }

    private mutating func release(_ slot: Int32) {
        keys[Int(slot)] = nil
        free.append(slot)
    }
}

/// A binary min-heap of slots by priority, with each slot's position kept so that a priority
/// can change or a slot leave in O(log n). Ties go to the slot that entered the heap first.
struct PriorityHeap: Sendable {
    private var heap: [Int32] = []
    private var priority: [Double] = []
    private var order: [UInt64] = []
    private var position: [Int32] = []
    private var clock: UInt64 = 0

    var count: Int { heap.count }
    var minPriority: Double? { heap.first.map { priority[Int($0)] } }
    var minSlot: Int32? { heap.first }

    mutating func insert(_ slot: Int32, priority p: Double) {
        let s = Int(slot)
        while priority.count <= s {
            priority.append(0)
            order.append(0)
            position.append(-1)
        }
        clock &+= 1
        priority[s] = p
        order[s] = clock
        position[s] = Int32(heap.count)
        heap.append(slot)
        up(heap.count - 1)
    }

    mutating func update(_ slot: Int32, priority p: Double) {
        let s = Int(slot)
        guard s < position.count, position[s] >= 0 else { return }
        let old = priority[s]
        priority[s] = p
        if p < old { up(Int(position[s])) } else { down(Int(position[s])) }
    }

    mutating func remove(_ slot: Int32) {
        let s = Int(slot)
        guard s < position.count, position[s] >= 0 else { return }
        let i = Int(position[s])
        let last = heap.count - 1
        if i != last {
            swap(i, last)
            heap.removeLast()
            position[s] = -1
            up(i)
            down(i)
        } else {
            heap.removeLast()
            position[s] = -1
        }
    }

    mutating func popMin() -> (Int32, Double)? {
        guard let top = heap.first else { return nil }
        let p = priority[Int(top)]
        remove(top)
        return (top, p)
    }

    private func less(_ a: Int, _ b: Int) -> Bool {
        let x = Int(heap[a]), y = Int(heap[b])
        return priority[x] < priority[y] || (priority[x] == priority[y] && order[x] < order[y])
    }

    private mutating func swap(_ a: Int, _ b: Int) {
        heap.swapAt(a, b)
        position[Int(heap[a])] = Int32(a)
        position[Int(heap[b])] = Int32(b)
    }

    private mutating func up(_ start: Int) {
        var i = start
        while i > 0 {
            let p = (i - 1) / 2
            guard less(i, p) else { break }
            swap(i, p)
            i = p
        }
    }

    private mutating func down(_ start: Int) {
        var i = start
        while true {
            let l = 2 * i + 1, r = l + 1
            var m = i
            if l < heap.count, less(l, m) { m = l }
            if r < heap.count, less(r, m) { m = r }
            if m == i { return }
            swap(i, m)
            i = m
        }
    }
}

/// Recently evicted keys with their read counts, bounded in count (the oldest forgotten first).
/// Every operation is O(1) (amortized: the queue is a ring that grows to its largest length once).
struct GhostCounts<Key: Hashable & Sendable>: Sendable {
    private var members: [Key: (count: Double, seq: Int)] = [:]
    /// Keys in the order they were remembered; an entry whose `seq` no longer matches its key's
    /// was superseded or forgotten.
    private var queue = CircularBuffer<(key: Key, seq: Int)>(initialCapacity: 64)
    private var seq = 0

    /// Remembers a key's count, forgetting the oldest beyond `limit`.
    mutating func insert(_ key: Key, count: Double, limit: Int) {
        seq += 1
        members[key] = (count, seq)
        queue.append((key, seq))
        while members.count > limit || queue.count > 2 * limit + 16 {
            let (k, s) = queue.removeFirst()
            if members[k]?.seq == s { members[k] = nil }
        }
    }

    /// Forgets a key; its count if it was remembered.
    mutating func remove(_ key: Key) -> Double? {
        members.removeValue(forKey: key)?.count
    }
}
