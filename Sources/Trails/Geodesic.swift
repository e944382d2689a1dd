import Foundation

/// Distances on the WGS 84 ellipsoid (Vincenty's inverse formula, to well under a millimetre for
/// the short segments of trails; GDAL 3.6 has no geodesic length of its own).
public enum Geodesic {
    static let a = 6_378_137.0
    static let f = 1 / 298.257223563
    static let b = a * (1 - f)

    /// The geodesic distance in metres between two points. For the rare nearly antipodal pair
    /// where Vincenty's iteration does not converge, the spherical distance at the mean radius.
    public static func distance(_ p: LonLat, _ q: LonLat) -> Double {
        if p == q { return 0 }
        let L = (q.lon - p.lon) * .pi / 180
        let U1 = atan((1 - f) * tan(p.lat * .pi / 180))
        let U2 = atan((1 - f) * tan(q.lat * .pi / 180))
        let sinU1 = sin(U1), cosU1 = cos(U1), sinU2 = sin(U2), cosU2 = cos(U2)
        var lambda = L
        for _ in 0..<200 {
            let sinL = sin(lambda), cosL = cos(lambda)
            let sinSigma = sqrt(
                (cosU2 * sinL) * (cosU2 * sinL) + (cosU1 * sinU2 - sinU1 * cosU2 * cosL) * (cosU1 * sinU2 - sinU1 * cosU2 * cosL))
            if sinSigma == 0 { return 0 }
            let cosSigma = sinU1 * sinU2 + cosU1 * cosU2 * cosL
            let sigma = atan2(sinSigma, cosSigma)
            let sinAlpha = cosU1 * cosU2 * sinL / sinSigma
            let cos2Alpha = 1 - sinAlpha * sinAlpha
            let cos2SigmaM = cos2Alpha != 0 ? cosSigma - 2 * sinU1 * sinU2 / cos2Alpha : 0
            let C = f / 16 * cos2Alpha * (4 + f * (4 - 3 * cos2Alpha))
            let previous = lambda
            lambda = L + (1 - C) * f * sinAlpha * (sigma + C * sinSigma * (cos2SigmaM + C * cosSigma * (-1 + 2 * cos2SigmaM * cos2SigmaM)))
            if abs(lambda - previous) < 1e-12 {
                let u2 = cos2Alpha * (a * a - b * b) / (b * b)
                let A = 1 + u2 / 16384 * (4096 + u2 * (-768 + u2 * (320 - 175 * u2)))
                let B = u2 / 1024 * (256 + u2 * (-128 + u2 * (74 - 47 * u2)))
                let deltaSigma =
                    B * sinSigma
                    * (cos2SigmaM + B / 4
                        * (cosSigma * (-1 + 2 * cos2SigmaM * cos2SigmaM)
                            - B / 6 * cos2SigmaM * (-3 + 4 * sinSigma * sinSigma) * (-3 + 4 * cos2SigmaM * cos2SigmaM)))
                return b * A * (sigma - deltaSigma)
            }
        }
        return spherical(p, q)
    }

    /// Great-circle distance on a sphere of the WGS 84 mean radius (haversine).
    static func spherical(_ p: LonLat, _ q: LonLat) -> Double {
        let r = (2 * a + b) / 3
        let dLat = (q.lat - p.lat) * .pi / 180, dLon = (q.lon - p.lon) * .pi / 180
        let h = sin(dLat / 2) * sin(dLat / 2) + cos(p.lat * .pi / 180) * cos(q.lat * .pi / 180) * sin(dLon / 2) * sin(dLon / 2)
        return 2 * r * asin(min(1, sqrt(h)))
    }

    /// The distance in metres from `point` to the nearest point of `geometry`: the nearest point
    /// of each segment is found in a local plane around `point` (exact enough at trail scale), and
    /// its distance is geodesic.
    public static func distance(from point: LonLat, to geometry: TrailGeometry) -> Double {
        let kx = cos(point.lat * .pi / 180)
        var best = Double.infinity
        var bestPoint = point
        for part in geometry.parts {
            guard let first = part.first else { continue }
            if part.count == 1 {
                let d = planar(point, first, kx)
                if d < best { best = d; bestPoint = first }
                continue
            }
            for i in 1..<part.count {
                let (d, q) = nearestOnSegment(point, part[i - 1], part[i], kx)
                if d < best { best = d; bestPoint = q }
            }
        }
        return best.isFinite ? distance(point, bestPoint) : .infinity
    }

    /// Squared planar distance in scaled degrees (longitude times cos(latitude)).
    static func planar(_ p: LonLat, _ q: LonLat, _ kx: Double) -> Double {
        let dx = wrap(q.lon - p.lon) * kx, dy = q.lat - p.lat
        return dx * dx + dy * dy
    }

    static func wrap(_ d: Double) -> Double {
        d > 180 ? d - 360 : (d < -180 ? d + 360 : d)
    }

    static func nearestOnSegment(_ p: LonLat, _ a: LonLat, _ b: LonLat, _ kx: Double) -> (Double, LonLat) {
        let ax = wrap(a.lon - p.lon) * kx, ay = a.lat - p.lat
        let bx = wrap(b.lon - p.lon) * kx, by = b.lat - p.lat
        let dx = bx - ax, dy = by - ay
        let len2 = dx * dx + dy * dy
        let t = len2 > 0 ? max(0, min(1, -(ax * dx + ay * dy) / len2)) : 0
        let x = ax + t * dx, y = ay + t * dy
        let q = LonLat(lon: a.lon + t * (b.lon - a.lon), lat: a.lat + t * (b.lat - a.lat))
        return (x * x + y * y, q)
    }
}
