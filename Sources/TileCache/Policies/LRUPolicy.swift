/// Least recently used: a hit moves the key to the head, the victim is the tail. Prefetched keys
/// enter at the tail, so an unused prediction is the next victim.
public struct LRUPolicy<Key: Hashable & Sendable>: EvictionPolicy {
    private var list = LinkedSlots<Key>()
    private var slots: [Key: Int32] = [:]

    public init() {}

    public var name: String { "lru" }

    public mutating func setCapacity(_ bytes: Int) {}

    public mutating func recordHit(_ key: Key) {
        guard let slot = slots[key] else { return }
        list.marks[Int(slot)] = 1
        list.moveToHead(slot)
    }

    public mutating func insert(_ key: Key, cost: Int, priority: AdmissionPriority) {
        if let old = slots[key] { list.remove(old) }
        slots[key] = list.push(key, cost: cost, atTail: priority == .prefetch)
    }

    public mutating func remove(_ key: Key) {
        if let slot = slots.removeValue(forKey: key) { list.remove(slot) }
    }

    public mutating func evict() -> Key? {
        guard list.tail >= 0, let key = list.remove(list.tail) else { return nil }
        slots[key] = nil
        return key
    }

    public mutating func evictCold() -> Key? {
        guard list.tail >= 0, list.marks[Int(list.tail)] == 0 else { return nil }
        return evict()
    }
}
