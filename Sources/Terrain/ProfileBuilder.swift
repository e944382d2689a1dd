/// Makes elevation profiles of lines from an elevation source.
public enum ProfileBuilder {
    /// The profile of `line` (latitude/longitude points, in order). The point count is checked
    /// first (before any point is looked at), then every coordinate, then the spacing.
    public static func profile(
        _ line: [GeoPoint], options: ProfileOptions = ProfileOptions(),
        source: some ElevationSource
    ) throws(ProfileError) -> ElevationProfile {
        try LineValidation.checkCount(line.count, limit: options.maxPoints)
        try LineValidation.checkCoordinates(line)
        let asked = options.spacing ?? ProfileOptions.defaultSpacing
        guard asked.isFinite, asked > 0 else { throw .badSpacing(asked) }
        let length = LineResampler.length(line)
        let spacing = max(asked, length / Double(options.maxSamples - 1) * (1 + 1e-9))
        let positions = LineResampler.resample(line, spacing: spacing)
        let heights: [Double?]
        do { heights = try source.elevations(at: positions.map(\.point)) } catch { throw .source(error) }
        return try summarize(positions: positions, heights: heights, length: length, spacing: spacing)
    }

    /// The totals over sampled positions and their elevations.
    static func summarize(
        positions: [(distance: Double, point: GeoPoint)], heights: [Double?],
        length: Double, spacing: Double
    ) throws(ProfileError) -> ElevationProfile {
        var samples = [ProfileSample]()
        samples.reserveCapacity(positions.count)
        var ascent = 0.0, descent = 0.0
        var maxGrade: Double?, minGrade: Double?
        var lowest: ProfilePoint?, highest: ProfilePoint?
        var lastKnown: Double?
        for (i, (distance, point)) in positions.enumerated() {
            let e = heights[i]
            var grade: Double?
            if let e {
                if let previous = lastKnown { if e > previous { ascent += e - previous } else { descent += previous - e } }
                lastKnown = e
                if i > 0, let before = heights[i - 1], distance > positions[i - 1].distance {
                    let g = (e - before) / (distance - positions[i - 1].distance) * 100
                    grade = g
                    maxGrade = max(maxGrade ?? g, g)
                    minGrade = min(minGrade ?? g, g)
                }
                if lowest == nil || e < lowest!.elevation { lowest = ProfilePoint(distance: distance, elevation: e, point: point) }
                if highest == nil || e > highest!.elevation { highest = ProfilePoint(distance: distance, elevation: e, point: point) }
            }
            samples.append(ProfileSample(distance: distance, point: point, elevation: e, grade: grade))
        }
        guard let lowest, let highest else { throw .noElevation }
        return ElevationProfile(
            length: length, spacing: spacing, ascent: ascent, descent: descent,
            maxGrade: maxGrade, minGrade: minGrade, lowest: lowest, highest: highest, samples: samples)
    }
}
