extension PMTilesReader {
    /// Visits every entry of every directory, depth first, in tile-id order, reading leaf
    /// directories without the cache: `tile` gets each tile entry, `leaf` each leaf entry and its
    /// depth (1 for the root's leaves). What would make lookups fail or miss tiles is reported to
    /// `problem` and the walk goes on with the rest: a leaf that does not decode, one referenced
    /// twice or nested deeper than `maxLeafDepth`, entries outside their parent's tile-id range.
    public func walk(
        tile: (PMTilesFormat.Entry) -> Void, leaf: (PMTilesFormat.Entry, Int) -> Void = { _, _ in },
        problem: (String) -> Void
    ) {
        var visited = Set<UInt64>()
        walk(
            rootEntries, depth: 0, range: 0..<(PMTilesDirectory.maxTileID + 1), name: "root directory", visited: &visited,
            tile: tile, leaf: leaf, problem: problem)
    }

    private func walk(
        _ entries: [PMTilesFormat.Entry], depth: Int, range: Range<UInt64>, name: String, visited: inout Set<UInt64>,
        tile: (PMTilesFormat.Entry) -> Void, leaf: (PMTilesFormat.Entry, Int) -> Void, problem: (String) -> Void
    ) {
        if let first = entries.first, let last = entries.last,
            first.tileID < range.lowerBound || last.tileID + UInt64(max(1, last.runLength)) > range.upperBound
        {
            problem(
                """
                the \(name) holds tile ids outside \(range.lowerBound)..<\(range.upperBound), the range its parent gives it: lookups miss \
                them
                """
            )
        }
        for (i, e) in entries.enumerated() {
            if e.runLength > 0 {
                tile(e)
                continue
            }
            leaf(e, depth + 1)
            guard depth < Self.maxLeafDepth else {
                problem("the leaf directory at offset \(e.offset) nests \(depth + 1) levels deep; readers follow \(Self.maxLeafDepth)")
                continue
            }
            guard visited.insert(e.offset).inserted else {
                problem("the leaf directory at offset \(e.offset) is referenced twice (a cycle or shared leaf)")
                continue
            }
            let end = i + 1 < entries.count ? entries[i + 1].tileID : range.upperBound
            do {
                let child = try readLeaf(e)
                walk(
                    child, depth: depth + 1, range: e.tileID..<max(e.tileID, end), name: "leaf directory at offset \(e.offset)",
                    visited: &visited, tile: tile, leaf: leaf, problem: problem)
            } catch {
                problem(error.problemDescription)
            }
        }
    }
}
