import TileGeometry

/// What a checked trails-only build will do: its zooms, the tiles drawn at each (the trails'
/// extent, one tile wider on every side for strokes that reach past it) and the jobs they are
/// cut into, `tilesPerJob` tiles each in order of zoom, row and column.
struct TrailOverlayPlan: Sendable {
    /// The build's zooms: those given, else from the zoom at which the trails fit in one tile to
    /// `defaultMaxZoom`.
    var zooms: ClosedRange<Int>
    /// The drawn zooms' tile ranges, lowest first.
    var ranges: [TileRange]
    /// The index of each range's first tile among all of them, and the total after the last.
    private var starts: [Int]

    /// The highest zoom drawn when the build names none.
    static let defaultMaxZoom = 14
    /// Tiles a thread takes at a time.
    static let tilesPerJob = 64
    /// The most tiles a trails-only build draws.
    static let maxTiles = 50_000_000

    /// Tiles the build considers.
    var total: Int { starts.last! }
    /// Jobs of `tilesPerJob` tiles (the last may have fewer).
    var jobs: Int { (total + Self.tilesPerJob - 1) / Self.tilesPerJob }

    /// Plans the build of `trails` with `options`: refused when sharded, above the highest zoom or
    /// above `maxTiles` tiles.
    init(options: BuildOptions, trails: PreparedTrails) throws(BuildError) {
        guard options.shard == nil else { throw .trailsOverlayNotSharded }
        let m = trails.bounds.mercator
        let fit = ZoomChoice.zoom(fitting: m.maxX - m.minX, m.maxY - m.minY)
        let lo = options.zoomsFromSources.contains(.min) ? min(fit, Self.defaultMaxZoom) : options.minZoom
        let hi = options.zoomsFromSources.contains(.max) ? max(lo, Self.defaultMaxZoom) : options.maxZoom
        zooms = lo...max(lo, hi)
        guard zooms.upperBound <= TileID.maxZoom else { throw .zoomTooHigh(zooms.upperBound) }
        let zooms = self.zooms
        ranges = zooms.filter { trails.draws($0, build: zooms) }.map { z in
            let r = TileRange(bounds: trails.bounds, zoom: z), last = (1 << z) - 1
            return TileRange(
                z: z, minX: max(0, r.minX - 1), maxX: min(last, r.maxX + 1), minY: max(0, r.minY - 1), maxY: min(last, r.maxY + 1))
        }
        starts = ranges.reduce(into: [0]) { $0.append($0.last! + $1.count) }
        guard starts.last! <= Self.maxTiles else { throw .tooManyTiles(count: starts.last!, maxZoom: zooms.upperBound) }
    }

    /// The tiles of job `k`, in order.
    func tiles(ofJob k: Int) -> [TileID] {
        let first = k * Self.tilesPerJob, end = min(total, first + Self.tilesPerJob)
        guard first < end else { return [] }
        var r = starts.lastIndex { $0 <= first }!
        var tiles = [TileID]()
        tiles.reserveCapacity(end - first)
        for g in first..<end {
            while g >= starts[r + 1] { r += 1 }
            let range = ranges[r], i = g - starts[r], w = range.maxX - range.minX + 1
            tiles.append(TileID(unchecked: range.z, range.minX + i % w, range.minY + i / w))
        }
        return tiles
    }
}
