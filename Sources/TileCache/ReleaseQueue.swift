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
        for part in kept.map(box.subtracting) ?? [box] { append(Region(bundle: bundle, z: z, box: part)) }
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
