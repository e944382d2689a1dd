/// Anything that answers elevations for points: terrain-tile bundles (`TerrainSampler`) or a
/// source DEM read through GDAL (`DEMSampler` in TerrainDEM).
public protocol ElevationSource: Sendable {
    /// The elevation in metres at each of `points`, in order; nil where the source has no
    /// elevation (a void, or a point outside it). Points must be valid WGS 84 degrees.
    func elevations(at points: [GeoPoint]) throws(ElevationError) -> [Double?]
}

extension ElevationSource {
    /// The elevation in metres at one point, or nil (void, outside).
    public func elevation(at point: GeoPoint) throws(ElevationError) -> Double? {
        try elevations(at: [point])[0]
    }
}
