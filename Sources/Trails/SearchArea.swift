import Foundation

/// The boxes a search looks in (two where it crosses the antimeridian), and exact tests of a
/// line against a box.
enum SearchArea {
    /// Boxes holding every point within `radiusKm` of `p` (with a margin; the exact distance is checked later).
    static func boxes(around p: LonLat, radiusKm: Double) -> [TrailBox] {
        // A degree of latitude is at least 110.57 km; margin for rounding.
        let dLat = radiusKm / 110.5 * 1.01
        let south = p.lat - dLat, north = p.lat + dLat
        if south <= -90 || north >= 90 {
            return [TrailBox(west: -180, south: max(-90, south), east: 180, north: min(90, north))]
        }
        let widest = max(abs(south), abs(north)) * .pi / 180
        let dLon = radiusKm / (111.32 * cos(widest)) * 1.01
        if dLon >= 180 { return [TrailBox(west: -180, south: south, east: 180, north: north)] }
        return boxes(TrailBox(west: wrap(p.lon - dLon), south: south, east: wrap(p.lon + dLon), north: north))
    }

    static func wrap(_ lon: Double) -> Double { lon < -180 ? lon + 360 : (lon > 180 ? lon - 360 : lon) }

    /// The box, split in two at the antimeridian when `west > east`.
    static func boxes(_ b: TrailBox) -> [TrailBox] {
        guard b.west > b.east else { return [b] }
        return [
            TrailBox(west: b.west, south: b.south, east: 180, north: b.north),
            TrailBox(west: -180, south: b.south, east: b.east, north: b.north)
        ]
    }

    /// Whether any segment of `g` has a point in `box`.
    static func intersects(_ g: TrailGeometry, _ box: TrailBox) -> Bool {
        guard let bounds = g.bounds, bounds.intersects(box) else { return false }
        for part in g.parts {
            for i in part.indices {
                let a = part[i]
                if box.west <= a.lon, a.lon <= box.east, box.south <= a.lat, a.lat <= box.north { return true }
                if i > 0, segmentCrosses(part[i - 1], a, box) { return true }
            }
        }
        return false
    }

    /// Liang-Barsky clipping: whether the segment a-b meets the box.
    static func segmentCrosses(_ a: LonLat, _ b: LonLat, _ box: TrailBox) -> Bool {
        var t0 = 0.0, t1 = 1.0
        let dx = b.lon - a.lon, dy = b.lat - a.lat
        for (p, q) in [(-dx, a.lon - box.west), (dx, box.east - a.lon), (-dy, a.lat - box.south), (dy, box.north - a.lat)] {
            if p == 0 {
                if q < 0 { return false }
            } else {
                let r = q / p
                if p < 0 { t0 = max(t0, r) } else { t1 = min(t1, r) }
                if t0 > t1 { return false }
            }
        }
        return true
    }
}
