import TrailMapAPI

/// An elevation answer written as JSON here rather than by `JSONEncoder`: the same bytes as
/// `JSONReply.bytes` gives (keys sorted, unknown elevations as null, each number in the encoder's
/// form), without the encoder's cost per value for a thousand points.
enum ElevationJSON {
    /// The answer's JSON; nil when a number is not finite (the encoder's error is the answer then).
    static func bytes(_ a: ElevationAnswer) -> [UInt8]? {
        var w = JSONWriter()
        w.out.reserveCapacity(16 + a.points.count * 64)
        w.raw("{\"points\":[")
        for (i, p) in a.points.enumerated() {
            w.raw(i == 0 ? "{\"elevationM\":" : ",{\"elevationM\":"); w.number(p.elevationM)
            w.raw(",\"lat\":"); w.number(p.lat)
            w.raw(",\"lon\":"); w.number(p.lon)
            w.raw("}")
        }
        w.raw("]}")
        return w.finite ? w.out : nil
    }
}
