/// A ground control point: a pixel/line position of the raster (edges at integers) and the CRS
/// coordinates it lies at, as a scanned map's registration gives them.
public struct GroundControlPoint: Sendable, Hashable {
    /// Column position (0 at the raster's left edge).
    public var pixel: Double
    /// Row position (0 at the raster's top edge).
    public var line: Double
    /// Easting or longitude in the points' CRS.
    public var x: Double
    /// Northing or latitude in the points' CRS.
    public var y: Double
}

/// How pixels are fitted to ground control points (`ReadOptions.gcpTransform`), as gdalwarp's `-order`
/// and `-tps` do it.
public enum GCPTransform: String, Sendable, CaseIterable, CustomStringConvertible {
    /// A polynomial of the highest order the points support, at most 2 (gdalwarp's default):
    /// order 1 below 6 points, else 2.
    case auto
    /// Affine (3 points or more).
    case order1
    /// Second order (6 points or more).
    case order2
    /// Third order (10 points or more).
    case order3
    /// A thin-plate spline through every point (rubber-sheeting; 3 points or more).
    case tps

    public var description: String { rawValue }

    /// The fewest points the fit solves with.
    public var minimumPoints: Int {
        switch self {
        case .order2: 6
        case .order3: 10
        default: 3
        }
    }

    /// GDAL's polynomial order (0: automatic), or nil for the thin-plate spline.
    var polynomialOrder: Int32? {
        switch self {
        case .auto: 0
        case .order1: 1
        case .order2: 2
        case .order3: 3
        case .tps: nil
        }
    }
}

/// How a raster's pixels tie to its CRS.
public enum Georeferencing: Sendable, Hashable {
    /// An affine geotransform (rotation and shear included).
    case affine(GeoTransform)
    /// Ground control points, fitted by `GCPTransform`.
    case groundControlPoints([GroundControlPoint], GCPTransform)
    /// Rational polynomial coefficients (a satellite scene's sensor model, GDAL's "RPC" metadata
    /// domain as `KEY=VALUE` items), from pixels to WGS 84 longitude and latitude, evaluated at
    /// one height for the whole scene: its `HEIGHT_OFF`, the producer's mean terrain height.
    case rationalPolynomials([String])

    /// The points and their fit when the georeference is ground control points.
    public var groundControlPoints: (points: [GroundControlPoint], fit: GCPTransform)? {
        if case let .groundControlPoints(points, fit) = self { return (points, fit) }
        return nil
    }

    /// Whether the georeference is a sensor model (RPCs).
    public var isRationalPolynomials: Bool {
        if case .rationalPolynomials = self { return true }
        return false
    }

    /// The geotransform when the georeference is affine.
    public var affine: GeoTransform? {
        if case let .affine(gt) = self { return gt }
        return nil
    }
}
