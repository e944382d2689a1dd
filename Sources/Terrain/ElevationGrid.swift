/// Elevations on a tile's pixel grid in Web Mercator, with a border of pixels on every side so
/// that a 3×3 window (hillshade) has neighbours at the tile's edges.
///
/// Values are metres; NaN is a void (no elevation).
public struct ElevationGrid: Sendable {
    /// The tile's width and height in pixels (the border not counted).
    public let size: Int
    /// Pixels of border on each side.
    public let border: Int
    /// `(size + 2 × border)²` values, rows north first.
    public var values: [Float]

    /// A grid of voids.
    public init(size: Int, border: Int) {
        self.size = size
        self.border = border
        values = [Float](repeating: .nan, count: (size + 2 * border) * (size + 2 * border))
    }

    /// A grid holding `values` (which must have `(size + 2 × border)²` elements).
    public init(size: Int, border: Int, values: [Float]) {
        precondition(values.count == (size + 2 * border) * (size + 2 * border))
        self.size = size
        self.border = border
        self.values = values
    }

    /// The grid of one tile cut out of a larger one (several tiles side by side, with a border
    /// around them all): `values` has `rasterWidth` values a row, and the tile's grid, border
    /// included, starts at column `x`, row `y` of it.
    public init(size: Int, border: Int, cutFrom values: [Float], rasterWidth: Int, x: Int, y: Int) {
        self = values.withUnsafeBufferPointer {
            ElevationGrid(size: size, border: border, cutFrom: $0, rasterWidth: rasterWidth, x: x, y: y)
        }
    }

    /// The grid of one tile cut out of a larger one held in a buffer (see
    /// `init(size:border:cutFrom:rasterWidth:x:y:)`).
    public init(size: Int, border: Int, cutFrom values: UnsafeBufferPointer<Float>, rasterWidth: Int, x: Int, y: Int) {
        let n = size + 2 * border
        precondition(x >= 0 && y >= 0 && x + n <= rasterWidth && (y + n) * rasterWidth <= values.count)
        self.size = size
        self.border = border
        self.values = [Float](unsafeUninitializedCapacity: n * n) { out, initialized in
            for row in 0..<n {
                let from = values.baseAddress! + (y + row) * rasterWidth + x
                (out.baseAddress! + row * n).initialize(from: from, count: n)
            }
            initialized = n * n
        }
    }

    /// Pixels in a row, border included.
    public var stride: Int { size + 2 * border }

    /// The elevation of tile pixel (x, y); the border is at -1 and `size`.
    @inline(__always) public func value(x: Int, y: Int) -> Float { values[(y + border) * stride + x + border] }

    /// Whether every pixel of the tile (the border not counted) is a void.
    public var isAllVoid: Bool {
        for y in 0..<size { for x in 0..<size where !value(x: x, y: y).isNaN { return false } }
        return true
    }

    /// Fills this grid's voids with `other`'s values (a later source drawn under an earlier one's
    /// gaps is the caller's order: call it on the upper source with the lower one).
    public mutating func fillVoids(from other: ElevationGrid) {
        precondition(other.values.count == values.count)
        for i in values.indices where values[i].isNaN { values[i] = other.values[i] }
    }
}
