import Foundation
import TileGeometry
import TrailMapAPI

/// The place a quote is for: a circle around a point, or a box. Areas are the tiles meeting the
/// shape's bounding box.
public struct AreaShape: Sendable, Equatable {
    public var center: (lon: Double, lat: Double)
    /// Half the box's extent in kilometres, east-west and north-south.
    public var halfWidthKm: Double
    public var halfHeightKm: Double
    /// Whether it was asked for as a circle (then both halves are the radius).
    public var isCircle: Bool

    public static func == (a: AreaShape, b: AreaShape) -> Bool {
        a.center == b.center && a.halfWidthKm == b.halfWidthKm && a.halfHeightKm == b.halfHeightKm && a.isCircle == b.isCircle
    }

    /// Kilometres per degree of latitude.
    static let kmPerDegree = 111.32

    /// The shape of a quote request, checked.
    public init(request r: AreaQuoteRequest) throws(AreaError) {
        switch (r.center, r.radiusKm, r.bbox) {
        case let (c?, radius?, nil):
            guard c.count == 2, c.allSatisfy(\.isFinite), (-180...180).contains(c[0]), abs(c[1]) <= WebMercator.maxLatitude else {
                throw .invalidRequest("center must be [longitude, latitude] with longitude -180 to 180 and latitude -85.05 to 85.05")
            }
            guard radius.isFinite, radius > 0, radius <= AreaQuoteRequest.maxRadiusKm else {
                throw .invalidRequest("radiusKm must be more than 0 and at most \(Int(AreaQuoteRequest.maxRadiusKm))")
            }
            center = (c[0], c[1])
            halfWidthKm = radius
            halfHeightKm = radius
            isCircle = true
        case let (nil, nil, b?):
            // Two corners: latitudes in either order; west > east is a box across the antimeridian;
            // a box of no width or height is the tiles at its point.
            guard b.count == 4, b.allSatisfy(\.isFinite), (-180...180).contains(b[0]), (-180...180).contains(b[2]),
                abs(b[1]) <= WebMercator.maxLatitude, abs(b[3]) <= WebMercator.maxLatitude
            else {
                throw .invalidRequest("bbox must be [west, south, east, north] with longitudes -180 to 180 and latitudes within ±85.05")
            }
            let (south, north) = (min(b[1], b[3]), max(b[1], b[3]))
            let width = b[2] >= b[0] ? b[2] - b[0] : b[2] + 360 - b[0]
            var lon = b[0] + width / 2
            if lon > 180 { lon -= 360 }
            let lat = (south + north) / 2
            center = (lon, lat)
            halfHeightKm = (north - south) / 2 * Self.kmPerDegree
            halfWidthKm = width / 2 * Self.kmPerDegree * max(cos(lat * .pi / 180), 1e-6)
            isCircle = false
            guard max(halfWidthKm, halfHeightKm) <= AreaQuoteRequest.maxRadiusKm else {
                throw .invalidRequest("the bbox may reach at most \(Int(AreaQuoteRequest.maxRadiusKm)) km from its centre")
            }
        default:
            throw .invalidRequest("give either center and radiusKm, or bbox")
        }
    }

    /// The radius (a circle's) or the larger half-extent (a box's), in kilometres.
    public var radiusKm: Double { max(halfWidthKm, halfHeightKm) }

    /// The same shape scaled to `radiusKm`.
    public func scaled(toRadiusKm r: Double) -> AreaShape {
        var s = self
        let f = r / max(radiusKm, 1e-9)
        s.halfWidthKm *= f
        s.halfHeightKm *= f
        return s
    }

    /// The bounding box in degrees, clipped to the Mercator world.
    public var bounds: GeoBounds {
        let dLat = halfHeightKm / Self.kmPerDegree
        let dLon = min(180, halfWidthKm / (Self.kmPerDegree * max(cos(center.lat * .pi / 180), 1e-6)))
        return GeoBounds(
            west: max(-180, center.lon - dLon), south: max(-WebMercator.maxLatitude, center.lat - dLat),
            east: min(180, center.lon + dLon), north: min(WebMercator.maxLatitude, center.lat + dLat))
    }

    /// Great-circle distance in kilometres from the centre to the nearest point of `b`.
    public func distanceKm(to b: GeoBounds) -> Double {
        let lon = min(max(center.lon, b.west), b.east), lat = min(max(center.lat, b.south), b.north)
        let r = 6371.0088, p1 = center.lat * .pi / 180, p2 = lat * .pi / 180
        let dp = p2 - p1, dl = (lon - center.lon) * .pi / 180
        let a = sin(dp / 2) * sin(dp / 2) + cos(p1) * cos(p2) * sin(dl / 2) * sin(dl / 2)
        return 2 * r * asin(min(1, sqrt(a)))
    }
}
