import TileGeometry

/// Requests of all sessions per neighbourhood (4x4 tiles of one zoom of one bundle), halved
/// every `halfLife` requests, with at most `capacity` neighbourhoods remembered. The cache counts
/// every request here and weighs the tiles it admits by it; the predictor reads it to seed new
/// sessions.
///
/// Every operation is O(1): a neighbourhood's count is halved lazily (each count keeps the number
/// of halvings it has seen, and the ones it missed are applied when it is next read or counted,
/// with the same result as halving every count at once); a new neighbourhood arriving at
/// `capacity` replaces the least counted of a few sampled ones.
struct Popularity {
    /// A neighbourhood: a bundle and its 4x4 cell at one zoom, packed (zoom, cell x, cell y).
    struct Cell: Hashable {
        var bundle: UInt32
        var packed: UInt64

        init?(_ bundle: UInt32, _ z: Int, _ x: Int, _ y: Int) {
            // Requests come from valid tiles; a place asked about beyond them (a viewport's next
            // one past the edge) has none, except at zooms 0 and 1, whose one cell spans more.
            guard z >= 0, z < 64, x >= 0, y >= 0, x >> 26 == 0, y >> 26 == 0 else { return nil }
            self.bundle = bundle
            packed = UInt64(z) << 48 | UInt64(x >> 2) << 24 | UInt64(y >> 2)
        }

        func hash(into hasher: inout Hasher) {
            hasher.combine(packed ^ UInt64(bundle) &* 0x9E37_79B9_7F4A_7C15)
        }
    }

    /// Tiles in a neighbourhood.
    static let cellTiles = 16.0
    /// Neighbourhoods looked at to pick one to forget when the table is full.
    static let evictionSample = 8

    var halfLife: Int
    var capacity: Int
    private var index: [Cell: Int32] = [:]
    private var cells: [Cell] = []
    private var counts: [Double] = []
    /// Halvings each count has seen.
    private var seen: [UInt32] = []
    /// Halvings so far.
    private var halvings: UInt32 = 0
    private var nextHalving = 0
    private var random: UInt64 = 0x2545_F491_4F6C_DD1D

    init(halfLife: Int = 50_000, capacity: Int = 65_536) {
        self.halfLife = max(1, halfLife)
        self.capacity = max(2, capacity)
    }

    /// Neighbourhoods remembered.
    var cellCount: Int { cells.count }

    mutating func record(_ key: TileKey, tick: Int) {
        if tick >= nextHalving {
            nextHalving = tick + halfLife
            halvings &+= 1
        }
        guard let c = Cell(key.bundle, key.tile.z, key.tile.x, key.tile.y) else { return }
        if let i = index[c].map(Int.init) {
            counts[i] = current(i) + 1
            seen[i] = halvings
            return
        }
        if cells.count >= capacity { forgetOne() }
        index[c] = Int32(cells.count)
        cells.append(c)
        counts.append(1)
        seen.append(halvings)
    }

    /// The decayed count of the neighbourhood holding a tile (0 for none, or outside the zoom's tiles).
    func count(bundle: UInt32, z: Int, x: Int, y: Int) -> Double {
        guard let c = Cell(bundle, z, x, y), let i = index[c] else { return 0 }
        return current(Int(i))
    }

    /// The decayed requests per tile of the neighbourhood holding `key`.
    func perTile(_ key: TileKey) -> Double {
        count(bundle: key.bundle, z: key.tile.z, x: key.tile.x, y: key.tile.y) / Self.cellTiles
    }

    /// Count `i` with the halvings it missed: each drops a count below one half, else halves it.
    private func current(_ i: Int) -> Double {
        var v = counts[i]
        var missed = halvings &- seen[i]
        while missed > 0 {
            if v < 0.5 { return 0 }
            v *= 0.5
            missed -= 1
        }
        return v
    }

    /// Forgets the least counted of `evictionSample` neighbourhoods picked at random.
    private mutating func forgetOne() {
        var victim = -1
        var lowest = Double.infinity
        for _ in 0..<Self.evictionSample {
            // xorshift64*: cheap, and good enough to spread samples over the table.
            random ^= random >> 12
            random ^= random << 25
            random ^= random >> 27
            let i = Int((random &* 0x2545_F491_4F6C_DD1D) % UInt64(cells.count))
            let v = current(i)
            if v < lowest {
                lowest = v
                victim = i
            }
        }
        guard victim >= 0 else { return }
        let last = cells.count - 1
        index[cells[victim]] = nil
        if victim != last {
            cells[victim] = cells[last]
            counts[victim] = counts[last]
            seen[victim] = seen[last]
            index[cells[victim]] = Int32(victim)
        }
        cells.removeLast()
        counts.removeLast()
        seen.removeLast()
    }
}
