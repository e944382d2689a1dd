import Foundation

/// Great-circle distances on a sphere of the Earth's mean radius (IUGG), as profiles measure them.
public enum Haversine {
    /// The Earth's mean radius in metres.
    public static let radius = 6_371_008.8

    /// The distance in metres between two points.
    public static func distance(_ p: GeoPoint, _ q: GeoPoint) -> Double {
        let dLat = (q.lat - p.lat) * .pi / 180, dLon = (q.lon - p.lon) * .pi / 180
        let h = sin(dLat / 2) * sin(dLat / 2) + cos(p.lat * .pi / 180) * cos(q.lat * .pi / 180) * sin(dLon / 2) * sin(dLon / 2)
        return 2 * radius * asin(min(1, sqrt(h)))
    }
}
