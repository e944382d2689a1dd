import Foundation
import Raster
import TileGeometry
@testable import TrailRendering

/// World pixels at a zoom (tiles of 256) and degrees.
enum TilePixels {
    static func world(lon: Double, lat: Double, zoom: Int, tileSize: Int = 256) -> (x: Double, y: Double) {
        let m = WebMercator.project(lon: lon, lat: lat)
        let scale = Double(1 << zoom) * Double(tileSize) / (2 * WebMercator.originShift)
        return ((m.x + WebMercator.originShift) * scale, (WebMercator.originShift - m.y) * scale)
    }

    static func geo(x: Double, y: Double, zoom: Int, tileSize: Int = 256) -> (lon: Double, lat: Double) {
        let scale = Double(1 << zoom) * Double(tileSize) / (2 * WebMercator.originShift)
        return WebMercator.unproject(x: x / scale - WebMercator.originShift, y: WebMercator.originShift - y / scale)
    }

    /// A line through world pixel points at `zoom`.
    static func line(
        _ id: String, name: String? = nil, _ d: TrailDifficultyStyleKey = .unknown,
        zoom: Int, _ pts: [(Double, Double)]
    ) -> TrailLine {
        TrailLine(
            id: id, name: name, difficulty: d,
            points: pts.map { p in
                let g = geo(x: p.0, y: p.1, zoom: zoom)
                return (g.lon, g.lat)
            })
    }
}

/// A deterministic pseudo-random sequence (no seeding of the system generator in tests).
struct SplitMix {
    var state: UInt64
    mutating func next() -> Double {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return Double((z ^ (z >> 31)) >> 11) / Double(1 << 53)
    }
}

/// Distance from (px, py) to the nearest segment of a polyline.
func distance(_ px: Double, _ py: Double, toPolyline pts: [(x: Double, y: Double)]) -> Double {
    var best = Double.infinity
    for (a, b) in zip(pts, pts.dropFirst()) {
        let dx = b.x - a.x, dy = b.y - a.y
        let len2 = dx * dx + dy * dy
        let t = len2 > 0 ? min(max(((px - a.x) * dx + (py - a.y) * dy) / len2, 0), 1) : 0
        best = min(best, hypot(px - (a.x + t * dx), py - (a.y + t * dy)))
    }
    return best
}

extension RGBAImage {
    func alpha(_ col: Int, _ row: Int) -> UInt8 { pixels[(row * width + col) * 4 + 3] }
    func rgba(_ col: Int, _ row: Int) -> [UInt8] { Array(pixels[((row * width + col) * 4)..<((row * width + col) * 4 + 4)]) }
}

/// Writes lines as a GeoJSON FeatureCollection in EPSG:4326.
func writeGeoJSON(_ lines: [TrailLine], to path: String) throws {
    let features: [[String: Any]] = lines.map { l in
        [
            "type": "Feature", "properties": ["id": l.id, "name": l.name ?? ""],
            "geometry": [
                "type": "LineString",
                "coordinates": stride(from: 0, to: l.coordinates.count - 1, by: 2).map { [l.coordinates[$0], l.coordinates[$0 + 1]] }
            ]
        ]
    }
    let data = try JSONSerialization.data(withJSONObject: ["type": "FeatureCollection", "features": features])
    try data.write(to: URL(fileURLWithPath: path))
}
