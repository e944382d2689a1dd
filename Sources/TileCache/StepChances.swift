import TileGeometry

/// How often the steps of sessions that ask for their viewport again are one-tile pans, and how
/// often a pan keeps the heading of the pan before, over all sessions (counts halved past
/// `memory` steps), starting from `priorPans` and `priorKept`.
struct PanHabit {
    var steps = 1.0
    var pans = PanHabit.priorPans
    var kept = PanHabit.priorPans * PanHabit.priorKept
    var headed = PanHabit.priorPans

    static var priorPans: Double { 0.7 }
    static var priorKept: Double { 0.7 }
    static var memory: Double { 4096 }

    /// Share of steps that pan, and share of pans after a pan that keep its heading.
    var panShare: Double { pans / steps }
    var keptShare: Double { headed > 0 ? kept / headed : Self.priorKept }

    mutating func count(pan: Bool, headed h: Bool, kept k: Bool) {
        steps += 1
        if pan { pans += 1 }
        if h { headed += 1 }
        if k { kept += 1 }
        if steps > Self.memory {
            steps /= 2
            pans /= 2
            kept /= 2
            headed /= 2
        }
    }
}

/// The eight one-tile moves of a pan.
let panMoves = [(1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1), (0, -1), (1, -1)]

/// A session's chances: the tile its last step centred on, the heading of its last pan, and the
/// chance it gave each tile of its next step.
struct StepChances {
    var centre: TileKey?
    var heading: Int?
    var stepTime: UInt64 = 0
    /// The chances given at the last step (empty when none are).
    var given = ChanceGrid()

    /// A step centred on `centre` (the first tile of a burst: viewers draw from the centre out)
    /// with a viewport of `width` by `height` tiles: learns its move, gives each tile of the
    /// next step's eight pans its chance, and appends to `changes` how each tile's chance
    /// changed. Returns the new chances, likeliest first.
    mutating func step(
        centre key: TileKey, now: UInt64, width: Int, height: Int, habit: inout PanHabit,
        changes: inout [(key: TileKey, change: Double)]
    ) -> [TileKey] {
        if let before = centre, before.bundle == key.bundle {
            let dx = key.tile.x - before.tile.x, dy = key.tile.y - before.tile.y
            let pan = before.tile.z == key.tile.z && abs(dx) <= 1 && abs(dy) <= 1 && (dx != 0 || dy != 0)
            let move = pan ? panMoves.firstIndex { $0 == (dx, dy) } : nil
            habit.count(pan: pan, headed: pan && heading != nil, kept: pan && heading != nil && move == heading)
            if pan { heading = move }
        }
        centre = key
        stepTime = now
        let box = TileBox(centre: key.tile.x, key.tile.y, w: width, h: height)
        var next = ChanceGrid(bundle: key.bundle, z: key.tile.z, x0: box.x0 - 1, y0: box.y0 - 1, width: width + 2, height: height + 2)
        let pPan = habit.panShare, pKept = habit.keptShare
        for (d, move) in panMoves.enumerated() {
            let p = pPan * (heading.map { d == $0 ? pKept : (1 - pKept) / 7 } ?? 1.0 / 8)
            for y in 0..<height {
                let row = (y + 1 + move.1) * next.width + 1 + move.0
                for x in row..<row + width {
                    next.values[x] += p
                    next.covered[x] = true
                }
            }
        }
        // Taken back: the chances of the step before outside this one's.
        given.forEach { k, x, y, c in
            if !next.holds(k.bundle, k.tile.z, x, y) { changes.append((k, -c)) }
        }
        // Every tile of the new chances, unchanged ones too: the cache drops a chance no change
        // touched for long.
        var ordered = [(key: TileKey, chance: Double)]()
        ordered.reserveCapacity(next.values.count)
        next.forEach { k, x, y, c in
            changes.append((k, c - given.chance(k.bundle, k.tile.z, x, y)))
            ordered.append((k, c))
        }
        given = next
        return ordered.sorted {
            $0.chance != $1.chance ? $0.chance > $1.chance : ($0.key.tile.y, $0.key.tile.x) < ($1.key.tile.y, $1.key.tile.x)
        }.map(\.key)
    }

    /// Ends the chances (the session went silent, jumped or was forgotten).
    mutating func end(changes: inout [(key: TileKey, change: Double)]) {
        given.forEach { k, _, _, c in changes.append((k, -c)) }
        given = ChanceGrid()
        centre = nil
    }
}

/// The chances one step gave: a grid of tiles of one zoom of one bundle (its tiles outside the
/// world, and those no pan reaches, have none).
struct ChanceGrid {
    var bundle: UInt32 = 0
    var z = 0
    var x0 = 0, y0 = 0
    var width = 0, height = 0
    var values: [Double] = []
    /// Whether a pan reaches the tile (its chance may be 0 and still count as given).
    var covered: [Bool] = []

    init() {}

    init(bundle: UInt32, z: Int, x0: Int, y0: Int, width: Int, height: Int) {
        (self.bundle, self.z, self.x0, self.y0, self.width, self.height) = (bundle, z, x0, y0, width, height)
        values = Array(repeating: 0, count: width * height)
        covered = Array(repeating: false, count: width * height)
    }

    /// Whether the grid gives tile x, y of zoom `z` of `bundle` a chance.
    func holds(_ b: UInt32, _ zoom: Int, _ x: Int, _ y: Int) -> Bool {
        guard b == bundle, zoom == z, x >= x0, y >= y0, x < x0 + width, y < y0 + height else { return false }
        return covered[(y - y0) * width + x - x0]
    }

    /// The chance given to tile x, y of zoom `z` of `bundle` (0 for none).
    func chance(_ b: UInt32, _ zoom: Int, _ x: Int, _ y: Int) -> Double {
        holds(b, zoom, x, y) ? values[(y - y0) * width + x - x0] : 0
    }

    /// Calls `body` with each tile given a chance (row by row), its column, row and chance.
    func forEach(_ body: (TileKey, Int, Int, Double) -> Void) {
        for gy in 0..<height {
            for gx in 0..<width where covered[gy * width + gx] {
                let x = x0 + gx, y = y0 + gy
                guard let id = TileID(z: z, x: x, y: y) else { continue }
                body(TileKey(bundle: bundle, tile: id), x, y, values[gy * width + gx])
            }
        }
    }
}
