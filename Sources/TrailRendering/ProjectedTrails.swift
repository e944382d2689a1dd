import TileGeometry

/// A box in normalized Web Mercator: x from 0 (180° W) to 1 (180° E), y from 0 (north edge) to 1.
struct WorldBox: Sendable, Equatable {
    var minX: Double, minY: Double, maxX: Double, maxY: Double

    static let empty = WorldBox(minX: .infinity, minY: .infinity, maxX: -.infinity, maxY: -.infinity)

    mutating func add(_ x: Double, _ y: Double) {
        minX = min(minX, x); minY = min(minY, y)
        maxX = max(maxX, x); maxY = max(maxY, y)
    }

    func intersects(_ o: WorldBox) -> Bool {
        minX <= o.maxX && o.minX <= maxX && minY <= o.maxY && o.minY <= maxY
    }
}

/// Why a line, or some of its points, could not be drawn.
public enum TrailLineIssue: Sendable, Equatable {
    /// The line has fewer than two points.
    case tooFewPoints(id: String, count: Int)
    /// Points with a coordinate that is not a finite longitude (±180) and latitude (±90); the
    /// line is broken there and its valid runs of two or more points are drawn.
    case invalidPoints(id: String, count: Int)
    /// The coordinate array has an odd number of values; the last one is ignored.
    case oddCoordinateCount(id: String)
    /// Segments that jump more than 180° of longitude (across the antimeridian); the line is
    /// broken there rather than drawn the long way round the world.
    case antimeridianCrossings(id: String, count: Int)
}

/// The trails projected once to normalized Web Mercator, split into runs of valid points
/// ("parts") and runs of at most `chunkLength` segments ("chunks") that the index holds.
struct ProjectedTrails: Sendable {
    /// One run of consecutive valid points of a line.
    struct Part: Sendable {
        var line: Int
        /// Range in `xy` (pairs: index i is x at 2i, y at 2i+1).
        var start: Int
        var count: Int
    }

    /// A piece of a part: `count` points from `start` (it shares its first point with the
    /// previous chunk's last), and the box holding them.
    struct Chunk: Sendable {
        var line: Int
        var start: Int
        var count: Int
        var box: WorldBox
    }

    static let chunkLength = 64

    /// The lines in drawing order: by difficulty (unknown lowest), then id.
    let lines: [TrailLine]
    let xy: [Double]
    let parts: [Part]
    let chunks: [Chunk]
    let issues: [TrailLineIssue]

    init(_ input: [TrailLine]) {
        let ordered = input.sorted { ($0.difficulty.rank, $0.id) < ($1.difficulty.rank, $1.id) }
        var xy = [Double]()
        var parts = [Part]()
        var chunks = [Chunk]()
        var issues = [TrailLineIssue]()
        let shift = WebMercator.originShift
        for (li, line) in ordered.enumerated() {
            let c = line.coordinates
            if c.count % 2 != 0 { issues.append(.oddCoordinateCount(id: line.id)) }
            let n = c.count / 2
            if n < 2 { issues.append(.tooFewPoints(id: line.id, count: n)); continue }
            var invalid = 0, crossings = 0
            var lastLon = Double.nan
            var runStart = xy.count / 2
            func closeRun() {
                let count = xy.count / 2 - runStart
                if count >= 2 {
                    parts.append(Part(line: li, start: runStart, count: count))
                    var s = runStart
                    while s < runStart + count - 1 {
                        let e = min(s + Self.chunkLength, runStart + count - 1)
                        var box = WorldBox.empty
                        for i in s...e { box.add(xy[2 * i], xy[2 * i + 1]) }
                        chunks.append(Chunk(line: li, start: s, count: e - s + 1, box: box))
                        s = e
                    }
                } else {
                    xy.removeLast(count * 2)
                }
                runStart = xy.count / 2
            }
            for i in 0..<n {
                let lon = c[2 * i], lat = c[2 * i + 1]
                guard lon.isFinite, lat.isFinite, abs(lon) <= 180, abs(lat) <= 90 else {
                    invalid += 1
                    closeRun()
                    continue
                }
                if xy.count / 2 > runStart, abs(lon - lastLon) > 180 {
                    crossings += 1
                    closeRun()
                }
                lastLon = lon
                let m = WebMercator.project(lon: lon, lat: lat)
                let x = (m.x + shift) / (2 * shift), y = (shift - m.y) / (2 * shift)
                // Repeated points add nothing to a stroke.
                if xy.count / 2 > runStart, xy[xy.count - 2] == x, xy[xy.count - 1] == y { continue }
                xy.append(x)
                xy.append(y)
            }
            closeRun()
            if invalid > 0 { issues.append(.invalidPoints(id: line.id, count: invalid)) }
            if crossings > 0 { issues.append(.antimeridianCrossings(id: line.id, count: crossings)) }
        }
        self.lines = ordered
        self.xy = xy
        self.parts = parts
        self.chunks = chunks
        self.issues = issues
    }
}
