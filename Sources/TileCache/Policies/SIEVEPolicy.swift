/// SIEVE (Zhang et al., NSDI 2024): a FIFO queue with one visited bit per key and a hand that
/// moves from the oldest end toward the newest, clearing visited bits and evicting the first
/// unvisited key. Hits only set a bit (no list moves), so they are cheap.
public struct SIEVEPolicy<Key: Hashable & Sendable>: EvictionPolicy {
    private var list = LinkedSlots<Key>()
    private var slots: [Key: Int32] = [:]
    private var hand: Int32 = -1

    public init() {}

    public var name: String { "sieve" }

    public mutating func setCapacity(_ bytes: Int) {}

    public mutating func recordHit(_ key: Key) {
        if let slot = slots[key] { list.marks[Int(slot)] = 1 }
    }

    public mutating func insert(_ key: Key, cost: Int, priority: AdmissionPriority) {
        remove(key)
        slots[key] = list.push(key, cost: cost)
    }

    public mutating func remove(_ key: Key) {
        guard let slot = slots.removeValue(forKey: key) else { return }
        if slot == hand { hand = list.newer(slot) }
        list.remove(slot)
    }

    public mutating func evict() -> Key? {
        guard list.count > 0 else { return nil }
        var h = hand >= 0 ? hand : list.tail
        while list.marks[Int(h)] != 0 {
            list.marks[Int(h)] = 0
            h = list.newer(h)
            if h < 0 { h = list.tail }
        }
        hand = list.newer(h)
        guard let key = list.remove(h) else { return nil }
        slots[key] = nil
        return key
    }

    public mutating func evictCold() -> Key? {
        guard list.count > 0 else { return nil }
        let h = hand >= 0 ? hand : list.tail
        guard list.marks[Int(h)] == 0 else { return nil }
        hand = list.newer(h)
        guard let key = list.remove(h) else { return nil }
        slots[key] = nil
        return key
    }
}
