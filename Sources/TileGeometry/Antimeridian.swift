import Foundation

/// Longitude extents that may cross the antimeridian (±180°), as a source in UTM zone 1 or 60,
/// Alaska Albers or a Fiji grid does.
public enum Antimeridian {
    /// Longitudes into [-180, 180).
    public static func wrap(_ lon: Double) -> Double {
        let w = (lon + 180).truncatingRemainder(dividingBy: 360)
        return (w < 0 ? w + 360 : w) - 180
    }

    /// The narrowest span covering `lons` (degrees) on the circle when it crosses the antimeridian:
    /// `west` in [0, 180) and `east` above 180; nil when the plain minimum-to-maximum span is as
    /// narrow (no crossing), or when no span narrower than 180° covers them (a raster around a pole).
    public static func crossingSpan(_ lons: [Double]) -> (west: Double, east: Double)? {
        let plain = lons.map(wrap)
        guard let lo = plain.min(), let hi = plain.max(), hi - lo > 180 else { return nil }
        let shifted = plain.map { $0 < 0 ? $0 + 360 : $0 }
        let west = shifted.min()!, east = shifted.max()!
        guard east - west < 180, west < 180, east > 180 else { return nil }
        return (west, east)
    }

    /// A box given with `east` beyond 180 (a span crossing the antimeridian) as its two parts,
    /// west of 180° and east of -180°; a box within ±180° as itself.
    public static func parts(_ b: GeoBounds) -> [GeoBounds] {
        guard b.east > 180, b.west < 180 else { return [b] }
        return [
            GeoBounds(west: b.west, south: b.south, east: 180, north: b.north),
            GeoBounds(west: -180, south: b.south, east: b.east - 360, north: b.north)
        ]
    }

    /// The centre longitude of boxes (each within ±180°) taken together on the circle: the middle
    /// of the longitudes they leave out's complement, so that boxes on both sides of the
    /// antimeridian centre near it rather than near 0°.
    public static func centerLongitude(_ boxes: [GeoBounds]) -> Double? {
        guard let (gapStart, gap) = widestGap(boxes) else { return nil }
        // The data runs from the gap's end around to its start.
        let west = gapStart + gap, east = gapStart + 360
        return wrap((west + east) / 2)
    }

    /// The degrees of longitude boxes (each within ±180°) span together on the circle: 360° less
    /// the widest gap they leave, so that boxes either side of the antimeridian span the
    /// narrow way across it.
    public static func spannedLongitudes(_ boxes: [GeoBounds]) -> Double? {
        widestGap(boxes).map { 360 - $0.width }
    }

    /// The widest run of longitudes no box covers (the wrap-around one included): where it starts, and its width.
    private static func widestGap(_ boxes: [GeoBounds]) -> (start: Double, width: Double)? {
        let spans = boxes.map { ($0.west, $0.east) }.sorted { $0.0 < $1.0 }
        guard !spans.isEmpty else { return nil }
        // Merge the spans, then find the widest gap between them, the wrap-around gap included.
        var merged = [spans[0]]
        for s in spans.dropFirst() {
            if s.0 <= merged[merged.count - 1].1 {
                merged[merged.count - 1].1 = max(merged[merged.count - 1].1, s.1)
            } else {
                merged.append(s)
            }
        }
        var gapStart = merged[merged.count - 1].1, gap = merged[0].0 + 360 - merged[merged.count - 1].1
        for k in 1..<merged.count where merged[k].0 - merged[k - 1].1 > gap {
            gap = merged[k].0 - merged[k - 1].1
            gapStart = merged[k - 1].1
        }
        return (gapStart, gap)
    }
}
