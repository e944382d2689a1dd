/// A doubly linked list in arrays (no per-node allocation), with a free list of slots. Head is
/// the newest end, tail the oldest. Each slot carries a key, a cost and a small mark.
struct LinkedSlots<Key: Hashable & Sendable>: Sendable {
    private(set) var keys: [Key?] = []
    private(set) var costs: [Int] = []
    var marks: [UInt8] = []
    private var prev: [Int32] = []
    private var next: [Int32] = []
    private var free: [Int32] = []
    private(set) var head: Int32 = -1
    private(set) var tail: Int32 = -1
    private(set) var count = 0
    private(set) var bytes = 0

    /// Adds at the head (newest end) or the tail; returns the slot.
    mutating func push(_ key: Key, cost: Int, mark: UInt8 = 0, atTail: Bool = false) -> Int32 {
        let slot: Int32
        if let f = free.popLast() {
            slot = f
            keys[Int(f)] = key
            costs[Int(f)] = cost
            marks[Int(f)] = mark
        } else {
            slot = Int32(keys.count)
            keys.append(key)
            costs.append(cost)
            marks.append(mark)
            prev.append(-1)
            next.append(-1)
        }
        link(slot, atTail: atTail)
        count += 1
        bytes += cost
        return slot
    }

    /// Removes a slot; returns its key.
    @discardableResult
    mutating func remove(_ slot: Int32) -> Key? {
        unlink(slot)
        let key = keys[Int(slot)]
        keys[Int(slot)] = nil
        free.append(slot)
        count -= 1
        bytes -= costs[Int(slot)]
        return key
    }

    /// Moves a slot to the head.
    mutating func moveToHead(_ slot: Int32) {
        guard slot != head else { return }
        unlink(slot)
        link(slot, atTail: false)
    }

    /// The slot nearer the head than `slot` (-1 at the head).
    func newer(_ slot: Int32) -> Int32 { prev[Int(slot)] }

    func key(_ slot: Int32) -> Key? { keys[Int(slot)] }

    private mutating func link(_ slot: Int32, atTail: Bool) {
        let s = Int(slot)
        if head < 0 {
            prev[s] = -1
            next[s] = -1
            head = slot
            tail = slot
        } else if atTail {
            prev[s] = tail
            next[s] = -1
            next[Int(tail)] = slot
            tail = slot
        } else {
            prev[s] = -1
            next[s] = head
            prev[Int(head)] = slot
            head = slot
        }
    }

    private mutating func unlink(_ slot: Int32) {
        let s = Int(slot)
        let p = prev[s], n = next[s]
        if p >= 0 { next[Int(p)] = n } else { head = n }
        if n >= 0 { prev[Int(n)] = p } else { tail = p }
        prev[s] = -1
        next[s] = -1
    }
}
