import TileGeometry

/// A box of tiles at one zoom, bounds inclusive.
struct TileBox: Equatable {
    var x0, y0, x1, y1: Int
    var width: Int { x1 - x0 + 1 }
    var height: Int { y1 - y0 + 1 }
    var cx: Double { Double(x0 + x1 + 1) / 2 }
    var cy: Double { Double(y0 + y1 + 1) / 2 }

    init(x0: Int, y0: Int, x1: Int, y1: Int) {
        self.x0 = x0
        self.y0 = y0
        self.x1 = x1
        self.y1 = y1
    }

    /// A box of `w` x `h` tiles centred on the tile at (x, y) (nearer the low end when even).
    init(centre x: Int, _ y: Int, w: Int, h: Int) {
        self.init(x0: x - (w - 1) / 2, y0: y - (h - 1) / 2, x1: x - (w - 1) / 2 + w - 1, y1: y - (h - 1) / 2 + h - 1)
    }

    func contains(_ x: Int, _ y: Int) -> Bool { x >= x0 && x <= x1 && y >= y0 && y <= y1 }

    func shifted(_ dx: Int, _ dy: Int) -> TileBox { TileBox(x0: x0 + dx, y0: y0 + dy, x1: x1 + dx, y1: y1 + dy) }

    mutating func include(_ x: Int, _ y: Int) {
        x0 = min(x0, x)
        x1 = max(x1, x)
        y0 = min(y0, y)
        y1 = max(y1, y)
    }

    /// Its tiles not in `other`, nearest its centre first.
    /// Ties keep the order of columns, then rows.
    func tiles(notIn other: TileBox?, z: Int) -> [TileID] {
        var tiles = [TileID]()
        // Each tile's squared distance from the centre, doubled to stay in integers, above its
        // index: one sort of plain integers orders them as a stable sort by distance would.
        var order = [UInt64]()
        let sx = x0 + x1, sy = y0 + y1
        for x in x0...x1 {
            for y in y0...y1 where other?.contains(x, y) != true {
                guard let id = TileID(z: z, x: x, y: y) else { continue }
                let dx = 2 * x - sx, dy = 2 * y - sy
                order.append(UInt64(dx * dx + dy * dy) << 32 | UInt64(tiles.count))
                tiles.append(id)
            }
        }
        order.sort()
        return order.map { tiles[Int($0 & 0xFFFF_FFFF)] }
    }

    /// The tiles in both boxes, or nil when they share none.
    func intersection(_ other: TileBox) -> TileBox? {
        let x0 = max(self.x0, other.x0), x1 = min(self.x1, other.x1)
        let y0 = max(self.y0, other.y0), y1 = min(self.y1, other.y1)
        return x0 <= x1 && y0 <= y1 ? TileBox(x0: x0, y0: y0, x1: x1, y1: y1) : nil
    }

    /// Its tiles outside `other` as at most four disjoint boxes: the rows above and below the
    /// overlap, then the parts of the overlap's rows left and right of it.
    func subtracting(_ other: TileBox) -> [TileBox] {
        guard let i = intersection(other) else { return [self] }
        let parts = [
            TileBox(x0: x0, y0: y0, x1: x1, y1: i.y0 - 1),
            TileBox(x0: x0, y0: i.y1 + 1, x1: x1, y1: y1),
            TileBox(x0: x0, y0: i.y0, x1: i.x0 - 1, y1: i.y1),
            TileBox(x0: i.x1 + 1, y0: i.y0, x1: x1, y1: i.y1)
        ]
        return parts.filter { $0.x0 <= $0.x1 && $0.y0 <= $0.y1 }
    }
}
