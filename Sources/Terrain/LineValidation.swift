/// The checks every line (or list of points) passes before any elevation is read.
public enum LineValidation {
    /// Refuses a count outside 2 (`minimum`) to `limit` before anything is parsed or read.
    public static func checkCount(_ count: Int, minimum: Int = 2, limit: Int) throws(ProfileError) {
        if count > limit { throw .tooManyPoints(count: count, limit: limit) }
        if count < minimum { throw .tooFewPoints(count: count) }
    }

    /// Refuses the first point with a latitude or longitude out of range (or not a number).
    public static func checkCoordinates(_ points: [GeoPoint]) throws(ProfileError) {
        for (i, p) in points.enumerated() {
            if !p.hasValidLatitude { throw .latitudeOutOfRange(index: i, value: p.lat) }
            if !p.hasValidLongitude { throw .longitudeOutOfRange(index: i, value: p.lon) }
        }
    }
}
