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
    var chances: [TileKey: Double] = [:]

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
        var next = [TileKey: Double]()
        let pPan = habit.panShare, pKept = habit.keptShare
        for (d, move) in panMoves.enumerated() {
            let p = pPan * (heading.map { d == $0 ? pKept : (1 - pKept) / 7 } ?? 1.0 / 8)
            let box = TileBox(centre: key.tile.x + move.0, key.tile.y + move.1, w: width, h: height)
            for x in box.x0...box.x1 {
                for y in box.y0...box.y1 {
                    guard let id = TileID(z: key.tile.z, x: x, y: y) else { continue }
                    next[TileKey(bundle: key.bundle, tile: id), default: 0] += p
                }
            }
        }
        for (k, c) in chances where next[k] == nil { changes.append((k, -c)) }
        // Every tile of the new chances, unchanged ones too: the cache drops a chance no change
        // touched for long.
        for (k, c) in next { changes.append((k, c - (chances[k] ?? 0))) }
        chances = next
        return next.sorted {
            $0.value != $1.value ? $0.value > $1.value : ($0.key.tile.y, $0.key.tile.x) < ($1.key.tile.y, $1.key.tile.x)
        }.map(\.key)
    }

    /// Ends the chances (the session went silent, jumped or was forgotten).
    mutating func end(changes: inout [(key: TileKey, change: Double)]) {
        for (k, c) in chances { changes.append((k, -c)) }
        chances = [:]
        centre = nil
    }
}
