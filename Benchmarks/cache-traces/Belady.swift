/// Belady's optimal offline policy (evict the key used furthest in the future), for unit-size
/// entries: the ceiling no online policy can pass.
enum Belady {
    static func hitRatio(_ ids: [Int], capacity: Int) -> Double {
        guard capacity > 0, !ids.isEmpty else { return 0 }
        let n = ids.count
        var nextUse = [Int](repeating: Int.max, count: n)
        var last = [Int: Int]()
        for i in stride(from: n - 1, through: 0, by: -1) {
            nextUse[i] = last[ids[i]] ?? Int.max
            last[ids[i]] = i
        }
        var resident = [Int: Int]()  // id -> its next use
        var heap = MaxHeap()
        var hits = 0
        for i in 0..<n {
            let id = ids[i]
            if resident[id] != nil { hits += 1 }
            else if resident.count >= capacity {
                while let top = heap.pop() {
                    if resident[top.id] == top.next {
                        resident[top.id] = nil
                        break
                    }
                }
            }
            resident[id] = nextUse[i]
            heap.push((nextUse[i], id))
        }
        return Double(hits) / Double(n)
    }
}

/// A binary max-heap of (next use, id), stale entries skipped by the caller.
struct MaxHeap {
    var items: [(next: Int, id: Int)] = []

    mutating func push(_ e: (next: Int, id: Int)) {
        items.append(e)
        var i = items.count - 1
        while i > 0 {
            let p = (i - 1) / 2
            guard items[p].next < items[i].next else { break }
            items.swapAt(p, i)
            i = p
        }
    }

    mutating func pop() -> (next: Int, id: Int)? {
        guard let top = items.first else { return nil }
        let last = items.removeLast()
        if !items.isEmpty {
            items[0] = last
            var i = 0
            while true {
                let l = 2 * i + 1, r = l + 1
                var m = i
                if l < items.count, items[l].next > items[m].next { m = l }
                if r < items.count, items[r].next > items[m].next { m = r }
                if m == i { break }
                items.swapAt(m, i)
                i = m
            }
        }
        return top
    }
}
