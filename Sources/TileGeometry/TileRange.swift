/// A rectangle of tiles at one zoom level, inclusive on both ends.
public struct TileRange: Hashable, Sendable, Sequence, CustomStringConvertible {
    public let z: Int
    public let minX: Int
    public let maxX: Int
    public let minY: Int
    public let maxY: Int

    public init(z: Int, minX: Int, maxX: Int, minY: Int, maxY: Int) {
        self.z = z
        self.minX = minX
        self.maxX = maxX
        self.minY = minY
        self.maxY = maxY
    }

    /// The tiles at zoom z that overlap a box (with area, so a box ending exactly on a tile edge
    /// does not pull in the next tile).
    public init(bounds: GeoBounds, zoom z: Int) {
        let m = bounds.mercator
        let n = 1 << z
        let span = WebMercator.tileSpan(zoom: z)
        let eps = span * 1e-9
        func col(_ x: Double) -> Int { Swift.min(Swift.max(Int(((x + WebMercator.originShift) / span).rounded(.down)), 0), n - 1) }
        func row(_ y: Double) -> Int { Swift.min(Swift.max(Int(((WebMercator.originShift - y) / span).rounded(.down)), 0), n - 1) }
        self.init(
            z: z, minX: col(m.minX + eps), maxX: col(m.maxX - eps),
            minY: row(m.maxY - eps), maxY: row(m.minY + eps))
    }

    /// Number of tiles in the range.
    public var count: Int { (maxX - minX + 1) * (maxY - minY + 1) }

    /// The tiles at zoom `z` (at least `tile.z`) under `tile`.
    public init(under tile: TileID, zoom z: Int) {
        precondition(z >= tile.z, "zoom \(z) is above tile \(tile)")
        let d = z - tile.z
        self.init(z: z, minX: tile.x << d, maxX: ((tile.x + 1) << d) - 1, minY: tile.y << d, maxY: ((tile.y + 1) << d) - 1)
    }

    /// The tiles in both ranges (of one zoom), or nil when they share none.
    public func intersection(_ other: TileRange) -> TileRange? {
        let x0 = Swift.max(minX, other.minX), x1 = Swift.min(maxX, other.maxX)
        let y0 = Swift.max(minY, other.minY), y1 = Swift.min(maxY, other.maxY)
        return x0 <= x1 && y0 <= y1 ? TileRange(z: z, minX: x0, maxX: x1, minY: y0, maxY: y1) : nil
    }

    /// The range grown by `n` tiles on every side (not clamped to the zoom's tiles).
    public func grown(by n: Int) -> TileRange {
        TileRange(z: z, minX: minX - n, maxX: maxX + n, minY: minY - n, maxY: maxY + n)
    }

    /// True when the tile lies in the range.
    public func contains(_ t: TileID) -> Bool {
        t.z == z && (minX...maxX).contains(t.x) && (minY...maxY).contains(t.y)
    }

    /// The i-th tile in row-major order (0 ..< count).
    public func tile(at i: Int) -> TileID {
        let w = maxX - minX + 1
        return TileID(unchecked: z, minX + i % w, minY + i / w)
    }

    public func makeIterator() -> AnyIterator<TileID> {
        var i = 0
        let c = count
        return AnyIterator {
            guard i < c else { return nil }
            defer { i += 1 }
            return self.tile(at: i)
        }
    }

    public var description: String { "z\(z) x \(minX)...\(maxX) y \(minY)...\(maxY)" }
}
