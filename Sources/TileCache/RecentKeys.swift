/// A bounded set of keys that forgets the oldest first: a session's recent predictions, the
/// prefetcher's tiles found absent.
struct RecentKeys {
    private var keys: Set<TileKey> = []
    private var order: [TileKey] = []
    private var next = 0
    let capacity: Int

    init(capacity: Int) { self.capacity = capacity }

    func contains(_ key: TileKey) -> Bool { keys.contains(key) }

    /// Adds a key (forgetting the oldest beyond the capacity); whether it was not there.
    @discardableResult
    mutating func insert(_ key: TileKey) -> Bool {
        guard keys.insert(key).inserted else { return false }
        if order.count < capacity {
            order.append(key)
        } else {
            // The oldest slot may hold this key from before it was used and forgotten.
            if order[next] != key { keys.remove(order[next]) }
            order[next] = key
            next = (next + 1) % capacity
        }
        return true
    }

    /// Forgets a key; whether it was there.
    mutating func remove(_ key: TileKey) -> Bool { keys.remove(key) != nil }
}
