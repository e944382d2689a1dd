import TileGeometry

/// The tiles a session that asks for its viewport again left behind, waiting to be told to the
/// cache as no longer expected, a few per request.
///
/// Leaving a viewport behind is recorded in O(1): the tiles of a box outside the box kept are at
/// most four rectangles, stored as such (not tile by tile). `take` hands out at most a given
/// number of tiles per call, so the work a request does for releases (here and in the cache,
/// under its lock) is bounded whatever the viewport's size or the session's moves. At most
/// `maxRegions` rectangles wait: beyond them the oldest are dropped, and their tiles stay
/// expected until the policy's newer expectations displace them (as with no release at all).
struct ReleaseQueue {
    /// A rectangle of tiles at one zoom of one bundle, handed out row by row from `next`.
    struct Region: Equatable {
        var bundle: UInt32
        var z: Int
        var box: TileBox
        /// Tiles of `box` handed out so far (row-major).
        var next = 0
    }

    static let maxRegions = 8
    private(set) var regions: [Region] = []

    var isEmpty: Bool { regions.isEmpty }

    /// Queues the tiles of `box` (zoom `z` of `bundle`) outside `kept`.
    mutating func add(bundle: UInt32, z: Int, box: TileBox, notIn kept: TileBox?) {
        guard let kept, kept.x0 <= box.x1, kept.x1 >= box.x0, kept.y0 <= box.y1, kept.y1 >= box.y0 else {
            append(Region(bundle: bundle, z: z, box: box))
            return
        }
        // The box outside its overlap with `kept`: the rows above and below it, then the parts
        // of its rows left and right of it.
        let i = TileBox(x0: max(box.x0, kept.x0), y0: max(box.y0, kept.y0), x1: min(box.x1, kept.x1), y1: min(box.y1, kept.y1))
        let parts = [
            TileBox(x0: box.x0, y0: box.y0, x1: box.x1, y1: i.y0 - 1),
            TileBox(x0: box.x0, y0: i.y1 + 1, x1: box.x1, y1: box.y1),
            TileBox(x0: box.x0, y0: i.y0, x1: i.x0 - 1, y1: i.y1),
            TileBox(x0: i.x1 + 1, y0: i.y0, x1: box.x1, y1: i.y1)
        ]
        for p in parts where p.x0 <= p.x1 && p.y0 <= p.y1 { append(Region(bundle: bundle, z: z, box: p)) }
    }

    private mutating func append(_ region: Region) {
        if regions.count >= Self.maxRegions { regions.removeFirst(regions.count - Self.maxRegions + 1) }
        regions.append(region)
    }

    /// Hands out at most `limit` queued tiles, oldest first, into `out`; a tile `stillExpected`
    /// says the session will ask for again is passed over (counted in `limit`, not handed out).
    /// Returns how many tiles were looked at (at most `limit`).
    @discardableResult
    mutating func take(_ limit: Int, into out: inout [TileKey], stillExpected: (UInt32, TileID) -> Bool) -> Int {
        var looked = 0
        while looked < limit, !regions.isEmpty {
            let r = regions[0]
            let w = r.box.width, count = w * r.box.height
            let n = min(count - r.next, limit - looked)
            for i in r.next..<(r.next + n) {
                guard let id = TileID(z: r.z, x: r.box.x0 + i % w, y: r.box.y0 + i / w) else { continue }
                if !stillExpected(r.bundle, id) { out.append(TileKey(bundle: r.bundle, tile: id)) }
            }
            looked += n
            if r.next + n == count { regions.removeFirst() } else { regions[0].next += n }
        }
        return looked
    }

    /// Tiles waiting (for tests).
    var waiting: Int { regions.reduce(0) { $0 + $1.box.width * $1.box.height - $1.next } }
}
