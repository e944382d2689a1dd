/// S3-FIFO (Yang et al., SOSP 2023): new keys enter a small FIFO (10% of the bytes); a key read
/// again while there moves to the main FIFO, the others leave and are remembered in a ghost
/// FIFO of keys only; a key coming back while remembered enters main directly. Main evicts
/// FIFO-style, giving keys read since their last pass another round (a 2-bit counter).
/// One-hit tiles (a viewport panning through territory nobody else looks at) thus leave quickly
/// without pushing out tiles many clients read.
public struct S3FIFOPolicy<Key: Hashable & Sendable>: EvictionPolicy {
    private var small = LinkedSlots<Key>()
    private var main = LinkedSlots<Key>()
    private var slots: [Key: Slot] = [:]
    private var ghost = GhostQueue<Key>()
    private var smallTarget: Int
    /// Reads needed while in the small queue to be promoted to main.
    public let promoteAfter: UInt8

    private struct Slot {
        var inMain: Bool
        var index: Int32
    }

    public init(capacity: Int, smallFraction: Double = 0.1, promoteAfter: UInt8 = 1) {
        smallTarget = max(1, Int(Double(capacity) * smallFraction))
        self.promoteAfter = promoteAfter
    }

    public var name: String { "s3fifo" }

    public mutating func setCapacity(_ bytes: Int) {
        smallTarget = max(1, bytes / 10)
    }

    public mutating func recordHit(_ key: Key) {
        guard let s = slots[key] else { return }
        if s.inMain {
            main.marks[Int(s.index)] = min(main.marks[Int(s.index)] + 1, 3)
        } else {
            small.marks[Int(s.index)] = min(small.marks[Int(s.index)] + 1, 3)
        }
    }

    public mutating func insert(_ key: Key, cost: Int, priority: AdmissionPriority) {
        remove(key)
        if priority == .demand, ghost.remove(key) {
            slots[key] = Slot(inMain: true, index: main.push(key, cost: cost))
        } else {
            slots[key] = Slot(inMain: false, index: small.push(key, cost: cost))
        }
    }

    public mutating func remove(_ key: Key) {
        guard let s = slots.removeValue(forKey: key) else { return }
        if s.inMain { main.remove(s.index) } else { small.remove(s.index) }
    }

    public mutating func evict() -> Key? {
        while small.count + main.count > 0 {
            if small.count > 0 && (small.bytes >= smallTarget || main.count == 0) {
                let t = small.tail
                let freq = small.marks[Int(t)]
                let cost = small.costs[Int(t)]
                guard let key = small.remove(t) else { return nil }
                if freq >= promoteAfter {
                    slots[key] = Slot(inMain: true, index: main.push(key, cost: cost))
                } else {
                    slots[key] = nil
                    ghost.insert(key, limit: max(16, main.count + small.count))
                    return key
                }
            } else {
                let t = main.tail
                if main.marks[Int(t)] > 0 {
                    main.marks[Int(t)] -= 1
                    main.moveToHead(t)
                } else {
                    guard let key = main.remove(t) else { return nil }
                    slots[key] = nil
                    return key
                }
            }
        }
        return nil
    }

    public mutating func evictCold() -> Key? {
        guard small.count > 0, small.marks[Int(small.tail)] == 0, let key = small.remove(small.tail) else { return nil }
        slots[key] = nil
        return key
    }
}

/// The ghost FIFO of S3-FIFO: recently evicted keys without their values, bounded in count.
struct GhostQueue<Key: Hashable & Sendable>: Sendable {
    private var members: [Key: Int] = [:]
    private var queue: [(key: Key, seq: Int)] = []
    private var head = 0
    private var seq = 0

    /// Remembers a key, forgetting the oldest beyond `limit`.
    mutating func insert(_ key: Key, limit: Int) {
        seq += 1
        members[key] = seq
        queue.append((key, seq))
        while members.count > limit || queue.count - head > 2 * limit + 16 {
            let (k, s) = queue[head]
            head += 1
            if members[k] == s { members[k] = nil }
        }
        if head > 4096 && head * 2 > queue.count {
            queue.removeFirst(head)
            head = 0
        }
    }

    /// Forgets a key; whether it was remembered.
    mutating func remove(_ key: Key) -> Bool {
        members.removeValue(forKey: key) != nil
    }
}
