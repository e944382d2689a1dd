/// Decoded leaf directories, least recently used out first, bounded by their total number of
/// entries (24 bytes each in memory). Not thread-safe: `PMTilesReader` keeps it under a lock.
struct PMTilesLeafCache {
    /// The most entries held; a leaf larger than this is never kept.
    let maxEntries: Int
    private var leaves: [UInt64: (entries: [PMTilesFormat.Entry], lastUse: UInt64)] = [:]
    private var held = 0
    private var clock: UInt64 = 0

    init(maxEntries: Int) {
        self.maxEntries = max(0, maxEntries)
    }

    /// Entries held in all leaves.
    var entryCount: Int { held }
    /// Leaves held.
    var count: Int { leaves.count }

    /// The leaf at `offset` (of the leaf section), marking it used.
    mutating func get(_ offset: UInt64) -> [PMTilesFormat.Entry]? {
        guard var leaf = leaves[offset] else { return nil }
        clock += 1
        leaf.lastUse = clock
        leaves[offset] = leaf
        return leaf.entries
    }

    /// Keeps a leaf, evicting the least recently used ones to stay within `maxEntries`.
    mutating func put(_ offset: UInt64, _ entries: [PMTilesFormat.Entry]) {
        guard entries.count <= maxEntries, leaves[offset] == nil else { return }
        // Leaves are few (a few dozen per archive at most a few thousand): a scan is cheap
        // beside decoding the leaf that is being added.
        while held + entries.count > maxEntries, let oldest = leaves.min(by: { $0.value.lastUse < $1.value.lastUse }) {
            held -= oldest.value.entries.count
            leaves[oldest.key] = nil
        }
        clock += 1
        leaves[offset] = (entries, clock)
        held += entries.count
    }
}
