import Foundation

/// Offline bounds over a trace of dense ids with byte costs, no prefetch. Both see the future:
/// a tile never asked for again is not kept, and when the bytes exceed the capacity the resident
/// tile (the new one included) with the highest score leaves, until they fit.
/// - `belady`: score = next use (byte-capacity Belady).
/// - `nextUseTimesSize`: score = distance to the next use × bytes. Tiles are grouped by cost in
///   buckets 3.5% wide; each bucket keeps a heap by next use and the victim is the best of the
///   buckets' tops, so the score is exact up to the bucket width.
enum OfflineBound {
    case belady
    case nextUseTimesSize

    static func nextUses(_ ids: [Int]) -> [Int] {
        var nextUse = [Int](repeating: Int.max, count: ids.count)
        var last = [Int: Int]()
        for i in stride(from: ids.count - 1, through: 0, by: -1) {
            nextUse[i] = last[ids[i]] ?? Int.max
            last[ids[i]] = i
        }
        return nextUse
    }

    /// Requests hit over requests.
    func hitRatio(_ ids: [Int], nextUse: [Int], costs: [Int], capacity: Int) -> Double {
        guard capacity > 0, !ids.isEmpty else { return 0 }
        let bucketCount = self == .belady ? 1 : 256
        func bucket(_ cost: Int) -> Int {
            guard bucketCount > 1 else { return 0 }
            return min(bucketCount - 1, max(0, Int(log(Double(cost) / 256) / log(1.035))))
        }
        var buckets = [MaxHeap](repeating: MaxHeap(), count: bucketCount)
        var residentNext = [Int](repeating: -1, count: costs.count)
        var bytes = 0
        var hits = 0
        for i in ids.indices {
            let id = ids[i], cost = costs[id]
            if residentNext[id] >= 0 {
                hits += 1
            } else {
                if nextUse[i] == Int.max || cost > capacity { continue }
                bytes += cost
            }
            if nextUse[i] == Int.max {
                residentNext[id] = -1
                bytes -= cost
                continue
            }
            residentNext[id] = nextUse[i]
            buckets[bucket(cost)].push((nextUse[i], id))
            while bytes > capacity {
                var best = -1, bestScore = -1.0
                for b in 0..<bucketCount {
                    while let top = buckets[b].top, residentNext[top.id] != top.next { _ = buckets[b].pop() }
                    guard let top = buckets[b].top else { continue }
                    let score = self == .belady ? Double(top.next) : Double(top.next - i) * Double(costs[top.id])
                    if score > bestScore { bestScore = score; best = b }
                }
                guard best >= 0, let victim = buckets[best].pop() else { break }
                residentNext[victim.id] = -1
                bytes -= costs[victim.id]
            }
        }
        return Double(hits) / Double(ids.count)
    }
}

/// A binary max-heap of (next use, id), stale entries skipped by the caller.
struct MaxHeap {
    var items: [(next: Int, id: Int)] = []

    var top: (next: Int, id: Int)? { items.first }

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
