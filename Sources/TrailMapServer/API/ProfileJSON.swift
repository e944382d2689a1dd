import TrailMapAPI

/// A profile answer written as JSON here rather than by `JSONEncoder`: the same bytes as
/// `JSONReply.bytes` gives (keys sorted, unknown elevations and grades as null, each number as
/// the encoder writes it: its shortest form, without a trailing `.0`), without the encoder's
/// cost per value, which for a profile of a thousand samples outweighs the rest of the request.
enum ProfileJSON {
    /// The answer's JSON; nil when a number is not finite (JSON has no such numbers: the
    /// encoder's error is the caller's answer then).
    static func bytes(_ a: ProfileAnswer) -> [UInt8]? {
        var w = JSONWriter()
        w.out.reserveCapacity(160 + a.samples.count * 96)
        w.raw("{\"ascentM\":"); w.number(a.ascentM)
        w.raw(",\"descentM\":"); w.number(a.descentM)
        w.raw(",\"highest\":"); w.extreme(a.highest)
        w.raw(",\"lengthM\":"); w.number(a.lengthM)
        w.raw(",\"lowest\":"); w.extreme(a.lowest)
        w.raw(",\"maxGradePct\":"); w.number(a.maxGradePct)
        w.raw(",\"minGradePct\":"); w.number(a.minGradePct)
        w.raw(",\"samples\":[")
        for (i, s) in a.samples.enumerated() {
            w.raw(i == 0 ? "{\"distanceM\":" : ",{\"distanceM\":"); w.number(s.distanceM)
            w.raw(",\"elevationM\":"); w.number(s.elevationM)
            w.raw(",\"gradePct\":"); w.number(s.gradePct)
            w.raw(",\"lat\":"); w.number(s.lat)
            w.raw(",\"lon\":"); w.number(s.lon)
            w.raw("}")
        }
        w.raw("],\"spacingM\":"); w.number(a.spacingM)
        w.raw("}")
        return w.finite ? w.out : nil
    }
}

extension JSONWriter {
    /// A profile's lowest or highest point.
    mutating func extreme(_ e: ProfileExtreme) {
        raw("{\"distanceM\":"); number(e.distanceM)
        raw(",\"elevationM\":"); number(e.elevationM)
        raw(",\"lat\":"); number(e.lat)
        raw(",\"lon\":"); number(e.lon)
        raw("}")
    }
}
