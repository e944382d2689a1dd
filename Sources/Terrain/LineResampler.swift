/// Points every `spacing` metres along a line (great-circle distances), its first and last
/// vertices always included; positions between vertices are interpolated linearly in degrees
/// (exact enough for the short segments of trails and drawn lines).
public enum LineResampler {
    /// The line's length in metres.
    public static func length(_ line: [GeoPoint]) -> Double {
        zip(line, line.dropFirst()).reduce(0) { $0 + Haversine.distance($1.0, $1.1) }
    }

    /// `(distance from the start, point)` pairs every `spacing` metres, and the line's end.
    public static func resample(_ line: [GeoPoint], spacing: Double) -> [(distance: Double, point: GeoPoint)] {
        guard let first = line.first else { return [] }
        var out: [(distance: Double, point: GeoPoint)] = [(0, first)]
        var travelled = 0.0
        var next = spacing
        for (a, b) in zip(line, line.dropFirst()) {
            let d = Haversine.distance(a, b)
            if d > 0 {
                while next < travelled + d - spacing * 1e-9 {
                    let f = (next - travelled) / d
                    out.append((next, GeoPoint(lat: a.lat + (b.lat - a.lat) * f, lon: a.lon + (b.lon - a.lon) * f)))
                    next += spacing
                }
            }
            travelled += d
        }
        if travelled > out[out.count - 1].distance { out.append((travelled, line[line.count - 1])) }
        return out
    }
}
