/// A point in degrees on WGS 84, as elevation requests give it (latitude first).
public struct GeoPoint: Sendable, Hashable, Codable {
    public var lat: Double
    public var lon: Double

    public init(lat: Double, lon: Double) {
        self.lat = lat
        self.lon = lon
    }

    /// Whether the latitude is a finite number within ±90 degrees.
    public var hasValidLatitude: Bool { lat.isFinite && abs(lat) <= 90 }

    /// Whether the longitude is a finite number within ±180 degrees.
    public var hasValidLongitude: Bool { lon.isFinite && abs(lon) <= 180 }
}
