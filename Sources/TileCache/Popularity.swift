import TileGeometry

/// Requests of all sessions per neighbourhood (4x4 tiles of one zoom of one bundle), halved
/// every `halfLife` requests, with at most `capacity` neighbourhoods remembered. The predictor
/// seeds new sessions from it; the cache weighs the tiles it admits by it.
struct Popularity {
    struct Cell: Hashable {
        var bundle: UInt32
        var z: Int
        var x: Int
        var y: Int
    }

    /// Tiles in a neighbourhood.
    static let cellTiles = 16.0

    var halfLife: Int
    var capacity: Int
    private var counts: [Cell: Double] = [:]
    private var nextHalving = 0

    init(halfLife: Int = 50_000, capacity: Int = 65_536) {
        self.halfLife = max(1, halfLife)
        self.capacity = max(2, capacity)
    }

    static func cell(_ bundle: UInt32, _ z: Int, _ x: Int, _ y: Int) -> Cell { Cell(bundle: bundle, z: z, x: x >> 2, y: y >> 2) }

    mutating func record(_ key: TileKey, tick: Int) {
        if tick >= nextHalving {
            nextHalving = tick + halfLife
            counts = counts.filter { $0.value >= 0.5 }.mapValues { $0 / 2 }
        }
        let c = Self.cell(key.bundle, key.tile.z, key.tile.x, key.tile.y)
        if counts.count >= capacity, counts[c] == nil {
            // Forget the least counted half in one pass, so this stays cheap on average.
            let cut = counts.values.sorted()[counts.count / 2]
            counts = counts.filter { $0.value > cut }
        }
        counts[c, default: 0] += 1
    }

    /// The decayed count of the neighbourhood holding a tile.
    func count(bundle: UInt32, z: Int, x: Int, y: Int) -> Double {
        counts[Self.cell(bundle, z, x, y)] ?? 0
    }

    /// The decayed requests per tile of the neighbourhood holding `key`.
    func perTile(_ key: TileKey) -> Double {
        count(bundle: key.bundle, z: key.tile.z, x: key.tile.x, y: key.tile.y) / Self.cellTiles
    }
}
