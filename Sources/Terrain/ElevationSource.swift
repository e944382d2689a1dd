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

/// Several elevation sources as one: at each point, the last source with an elevation there
/// (later sources cover earlier ones, as a build's DEMs do).
public struct LayeredElevation: ElevationSource {
    public let sources: [any ElevationSource]

    public init(_ sources: [any ElevationSource]) { self.sources = sources }

    public func elevations(at points: [GeoPoint]) throws(ElevationError) -> [Double?] {
        var out = [Double?](repeating: nil, count: points.count)
        for source in sources.reversed() {
            let missing = out.indices.filter { out[$0] == nil }
            guard !missing.isEmpty else { break }
            let found = try source.elevations(at: missing.map { points[$0] })
            for (i, e) in zip(missing, found) { out[i] = e }
        }
        return out
    }
}
