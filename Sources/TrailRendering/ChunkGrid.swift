/// A uniform grid over the trails' extent: each cell lists the chunks whose boxes overlap it,
/// so a tile only looks at the lines near it.
struct ChunkGrid: Sendable {
    private let extent: WorldBox
    private let columns: Int
    private let rows: Int
    private let cellWidth: Double
    private let cellHeight: Double
    private let cells: [[Int32]]

    init(_ chunks: [ProjectedTrails.Chunk]) {
        var extent = WorldBox.empty
        for c in chunks {
            extent.add(c.box.minX, c.box.minY)
            extent.add(c.box.maxX, c.box.maxY)
        }
        if chunks.isEmpty { extent = WorldBox(minX: 0, minY: 0, maxX: 0, maxY: 0) }
        // About two chunks per cell, at most 1024 cells a side.
        let side = max(1, min(1024, Int(Double(chunks.count / 2).squareRoot())))
        self.extent = extent
        columns = side
        rows = side
        cellWidth = max(extent.maxX - extent.minX, 1e-12) / Double(side)
        cellHeight = max(extent.maxY - extent.minY, 1e-12) / Double(side)
        var cells = [[Int32]](repeating: [], count: side * side)
        for (i, c) in chunks.enumerated() {
            let (c0, c1, r0, r1) = Self.span(c.box, extent, cellWidth, cellHeight, side, side)
            for r in r0...r1 {
                for col in c0...c1 { cells[r * side + col].append(Int32(i)) }
            }
        }
        self.cells = cells
    }

    private static func span(
        _ b: WorldBox, _ e: WorldBox, _ w: Double, _ h: Double, _ cols: Int, _ rows: Int
    )
        -> (Int, Int, Int, Int)
    {
        func clampCol(_ v: Double) -> Int { min(max(Int(((v - e.minX) / w).rounded(.down)), 0), cols - 1) }
        func clampRow(_ v: Double) -> Int { min(max(Int(((v - e.minY) / h).rounded(.down)), 0), rows - 1) }
        return (clampCol(b.minX), clampCol(b.maxX), clampRow(b.minY), clampRow(b.maxY))
    }

    /// The chunks whose boxes meet `box`, in increasing index (drawing) order.
    func chunks(meeting box: WorldBox, in all: [ProjectedTrails.Chunk]) -> [Int] {
        guard !all.isEmpty, box.intersects(extent) else { return [] }
        let (c0, c1, r0, r1) = Self.span(box, extent, cellWidth, cellHeight, columns, rows)
        var found = [Int]()
        for r in r0...r1 {
            for c in c0...c1 {
                for i in cells[r * columns + c] where all[Int(i)].box.intersects(box) { found.append(Int(i)) }
            }
        }
        if c1 > c0 || r1 > r0 {
            found.sort()
            var unique = [Int]()
            unique.reserveCapacity(found.count)
            for i in found where unique.last != i { unique.append(i) }
            return unique
        }
        return found
    }
}
