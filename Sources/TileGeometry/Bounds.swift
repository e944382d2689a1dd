import Foundation

/// A longitude/latitude box in degrees (EPSG:4326): west, south, east, north.
public struct GeoBounds: Hashable, Sendable, Codable, CustomStringConvertible {
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

    /// The whole Web Mercator world.
    public static let world = GeoBounds(
        west: -180, south: -WebMercator.maxLatitude, east: 180, north: WebMercator.maxLatitude)

    /// Parses `W,S,E,N` (as in MBTiles `bounds` or a `--bbox` flag).
    public init?(parsing text: String) {
        let parts = text.split(separator: ",").map { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard parts.count == 4, let w = parts[0], let s = parts[1], let e = parts[2], let n = parts[3],
            [w, s, e, n].allSatisfy(\.isFinite), w < e, s < n
        else { return nil }
        self.init(west: w, south: s, east: e, north: n)
    }

    /// True when the box is a valid non-empty box on the globe.
    public var isValid: Bool {
        [west, south, east, north].allSatisfy(\.isFinite) && west < east && south < north
            && west >= -180 && east <= 180 && south >= -90 && north <= 90
    }

    /// The part of the box inside the Web Mercator square, or nil if none.
    public var clippedToMercator: GeoBounds? { intersection(.world) }

    /// The overlap of two boxes, or nil when they do not overlap.
    public func intersection(_ o: GeoBounds) -> GeoBounds? {
        let b = GeoBounds(
            west: max(west, o.west), south: max(south, o.south),
            east: min(east, o.east), north: min(north, o.north))
        return (b.west < b.east && b.south < b.north) ? b : nil
    }

    /// The smallest box holding both.
    public func union(_ o: GeoBounds) -> GeoBounds {
        GeoBounds(
            west: min(west, o.west), south: min(south, o.south),
            east: max(east, o.east), north: max(north, o.north))
    }

    /// Centre point (lon, lat).
    public var center: (lon: Double, lat: Double) { ((west + east) / 2, (south + north) / 2) }

    /// Projected to Web Mercator metres (latitudes clipped).
    public var mercator: MercatorBounds {
        let (x0, y0) = WebMercator.project(lon: west, lat: south)
        let (x1, y1) = WebMercator.project(lon: east, lat: north)
        return MercatorBounds(minX: x0, minY: y0, maxX: x1, maxY: y1)
    }

    /// `W,S,E,N` with 6 decimals, as MBTiles metadata wants it.
    public var description: String {
        [west, south, east, north].map { String(format: "%.6f", $0) }.joined(separator: ",")
    }
}

/// A box in Web Mercator metres.
public struct MercatorBounds: Hashable, Sendable {
    public var minX: Double
    public var minY: Double
    public var maxX: Double
    public var maxY: Double

    public init(minX: Double, minY: Double, maxX: Double, maxY: Double) {
        self.minX = minX
        self.minY = minY
        self.maxX = maxX
        self.maxY = maxY
    }

    /// Unprojected to degrees.
    public var geoBounds: GeoBounds {
        let (w, s) = WebMercator.unproject(x: minX, y: minY)
        let (e, n) = WebMercator.unproject(x: maxX, y: maxY)
        return GeoBounds(west: w, south: s, east: e, north: n)
    }

    /// True when the two boxes overlap with a non-empty area.
    public func intersects(_ o: MercatorBounds) -> Bool {
        minX < o.maxX && o.minX < maxX && minY < o.maxY && o.minY < maxY
    }
}
