/// GDAL's affine geotransform: pixel/line (edges at integers) to CRS coordinates,
/// `x = c0 + col * c1 + row * c2`, `y = c3 + col * c4 + row * c5`. Rotation and shear allowed.
public struct GeoTransform: Sendable, Hashable {
    public var c0, c1, c2, c3, c4, c5: Double

    public init(_ c: [Double]) {
        precondition(c.count == 6)
        (c0, c1, c2, c3, c4, c5) = (c[0], c[1], c[2], c[3], c[4], c[5])
    }

    public init(c0: Double, c1: Double, c2: Double, c3: Double, c4: Double, c5: Double) {
        (self.c0, self.c1, self.c2, self.c3, self.c4, self.c5) = (c0, c1, c2, c3, c4, c5)
    }

    /// CRS coordinates of a pixel position.
    @inline(__always) public func apply(col: Double, row: Double) -> (x: Double, y: Double) {
        (c0 + col * c1 + row * c2, c3 + col * c4 + row * c5)
    }

    /// The inverse map (CRS to pixel), or nil when the transform is singular.
    public var inverse: GeoTransform? {
        let det = c1 * c5 - c2 * c4
        guard det.isFinite, abs(det) > 0 else { return nil }
        let i1 = c5 / det, i2 = -c2 / det, i4 = -c4 / det, i5 = c1 / det
        return GeoTransform(c0: -(c0 * i1 + c3 * i2), c1: i1, c2: i2, c3: -(c0 * i4 + c3 * i5), c4: i4, c5: i5)
    }

    /// No rotation or shear, columns going east and rows going south.
    public var isNorthUp: Bool { c2 == 0 && c4 == 0 && c1 > 0 && c5 < 0 }
}
