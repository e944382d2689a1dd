import Foundation
import TileCache

// Replays generated map sessions against each cache policy of the TileCache module (the same
// TileCache class the server uses, unit-size entries) at budgets of 1%, 5% and 10% of the
// distinct tiles, beside Belady's offline optimum; then again with prefetch on.
// Usage: cache-traces [requests] (default 1,000,000)

let requests = CommandLine.arguments.dropFirst().first.flatMap(Int.init) ?? 1_000_000
let trace = TraceGenerator().generate(requests: requests)
var dense = [TileKey: Int]()
let ids = trace.map { r -> Int in
    if let i = dense[r.key] { return i }
    dense[r.key] = dense.count
    return dense.count - 1
}
let distinct = dense.count
print("trace: \(trace.count) requests, \(distinct) distinct tiles, \(Set(trace.map(\.client)).count) sessions")

let unit = CachedTile(bytes: [], etag: "")
func replay(_ kind: PolicyKind, entries: Int, prefetch: Bool) -> (hit: Double, issued: Int, used: Int) {
    let cache = TileCache(budget: entries * unit.cost, policy: kind)
    let predictor = PrefetchPredictor()
    for r in trace {
        _ = try? cache.tile(r.key) { unit }
        if prefetch {
            for k in predictor.observe(client: String(r.client), key: r.key) where !cache.contains(k) {
                cache.prefetch(k) { unit }
            }
        }
    }
    let s = cache.statistics
    return (s.hitRatio, s.prefetchesIssued, s.prefetchesUsed)
}

func pct(_ x: Double) -> String { String(format: "%5.1f%%", x * 100) }

for prefetch in [false, true] {
    print(prefetch ? "\n## with prefetch (predicted tiles loaded through the same admission)" : "\n## without prefetch")
    print("| budget | entries | Belady | " + PolicyKind.allCases.map { "\($0.rawValue) (of Belady)" }.joined(separator: " | ") + " |")
    print("|---|---|---|" + PolicyKind.allCases.map { _ in "---" }.joined(separator: "|") + "|")
    for share in [0.01, 0.05, 0.10] {
        let entries = max(1, Int(Double(distinct) * share))
        let opt = Belady.hitRatio(ids, capacity: entries)
        var cells = [String]()
        var notes = [String]()
        for kind in PolicyKind.allCases {
            let r = replay(kind, entries: entries, prefetch: prefetch)
            cells.append("\(pct(r.hit)) (\(String(format: "%.2f", r.hit / max(opt, 1e-9))))")
            if prefetch { notes.append("\(kind.rawValue): \(r.used)/\(r.issued) prefetches used") }
        }
        print("| \(Int(share * 100))% | \(entries) | \(pct(opt)) | " + cells.joined(separator: " | ") + " |")
        if prefetch { print("  " + notes.joined(separator: "; ")) }
    }
}
