/// A point in degrees on WGS 84 (EPSG:4326), longitude first.
public struct LonLat: Sendable, Hashable, Codable {
    public var lon: Double
    public var lat: Double
    public init(lon: Double, lat: Double) {
        self.lon = lon
        self.lat = lat
    }
}

/// A box in degrees on WGS 84; `west <= east` (trails across the antimeridian are refused).
public struct TrailBox: Sendable, Hashable, Codable {
    public var west: Double
    public var south: Double
    public var east: Double
    public var north: Double
    public init(west: Double, south: Double, east: Double, north: Double) {
        self.west = west
        self.south = south
        self.east = east
        self.north = north
    }

    /// The smallest box holding `points` (nil for none).
    public init?(points: some Sequence<LonLat>) {
        var w = Double.infinity, s = Double.infinity, e = -Double.infinity, n = -Double.infinity
        for p in points {
            w = min(w, p.lon); e = max(e, p.lon)
            s = min(s, p.lat); n = max(n, p.lat)
        }
        guard w <= e, s <= n else { return nil }
        self.init(west: w, south: s, east: e, north: n)
    }

    /// Whether the two boxes share a point (neither wraps the antimeridian).
    public func intersects(_ o: TrailBox) -> Bool {
        west <= o.east && o.west <= east && south <= o.north && o.south <= north
    }

    public func union(_ o: TrailBox) -> TrailBox {
        TrailBox(west: min(west, o.west), south: min(south, o.south), east: max(east, o.east), north: max(north, o.north))
    }
}

/// A trail's geometry: one or more lines (parts) of at least two points each, in degrees.
public struct TrailGeometry: Sendable, Hashable {
    public var parts: [[LonLat]]
    public init(parts: [[LonLat]]) { self.parts = parts }

    /// Every point of every part.
    public var points: some Sequence<LonLat> { parts.lazy.flatMap { $0 } }
    public var pointCount: Int { parts.reduce(0) { $0 + $1.count } }
    public var start: LonLat? { parts.first?.first }
    public var end: LonLat? { parts.last?.last }
    public var bounds: TrailBox? { TrailBox(points: points) }

    /// Geodesic length on WGS 84 in metres: the sum of its segments' (`Geodesic.distance`).
    public var lengthMetres: Double {
        var total = 0.0
        for part in parts where part.count > 1 {
            for i in 1..<part.count { total += Geodesic.distance(part[i - 1], part[i]) }
        }
        return total
    }
}
