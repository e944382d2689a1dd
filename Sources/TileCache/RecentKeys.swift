/// A bounded set of keys that forgets the oldest first: a session's recent predictions, the
/// prefetcher's tiles found absent.
struct RecentKeys {
    /// Each key held, with the slot of `order` that holds it: a key removed and added again is in
    /// two slots, and only the later one forgets it.
    private var slots: [TileKey: Int] = [:]
    private var order: [TileKey] = []
    private var next = 0
    let capacity: Int

    init(capacity: Int) { self.capacity = max(1, capacity) }

    /// The number of keys held.
    var count: Int { slots.count }

    func contains(_ key: TileKey) -> Bool { slots[key] != nil }

    /// Adds a key (forgetting the oldest beyond the capacity); whether it was not there.
    @discardableResult
    mutating func insert(_ key: TileKey) -> Bool {
        guard slots[key] == nil else { return false }
        if order.count < capacity {
            slots[key] = order.count
            order.append(key)
        } else {
            let oldest = order[next]
            if slots[oldest] == next { slots[oldest] = nil }
            order[next] = key
            slots[key] = next
            next = (next + 1) % capacity
        }
        return true
    }

    /// Forgets a key; whether it was there.
    mutating func remove(_ key: TileKey) -> Bool { slots.removeValue(forKey: key) != nil }
}
