import Foundation

/// A trail search: where (a point and radius, or a box), what name, which difficulties and uses,
/// how long; sorted and paged. `validate()` refuses contradictory or out-of-range parameters.
public struct TrailQuery: Sendable, Equatable {
    public enum Sort: String, Sendable, CaseIterable {
        /// Nearest first (needs `near`).
        case distance
        /// Longest first.
        case length
        /// By name (then id).
        case name
    }

    /// A point to search around, with the greatest distance from it to the trail's nearest point.
    public var near: LonLat?
    public var radiusKm: Double?
    /// A box; `west > east` is a box across the antimeridian.
    public var bbox: TrailBox?
    /// Name (or ref) words: case- and accent-insensitive, the last word a prefix, typos tolerated.
    public var text: String?
    /// Only these difficulties (empty: any).
    public var difficulties: Set<TrailDifficulty> = []
    /// Uses every result must allow.
    public var uses: TrailUses = []
    /// Uses no result may allow (a trail that says nothing about a use is kept).
    public var excludeUses: TrailUses = []
    public var minLengthKm: Double?
    public var maxLengthKm: Double?
    /// Only trails whose stored ascent is at most this many metres (trails without elevation are left out).
    public var maxAscentM: Double?
    /// Only trails whose stored steepest grade is at most this percent (trails without elevation are left out).
    public var maxGradePct: Double?
    /// Default: distance with `near`, else name.
    public var sort: Sort?
    public var limit = 20
    /// The `nextCursor` of the previous page.
    public var cursor: String?

    public static let maxLimit = 1000
    public static let maxRadiusKm = 20_000.0

    public init() {}

    /// The sort in effect.
    public var effectiveSort: Sort { sort ?? (near != nil ? .distance : .name) }

    /// Checks every parameter alone and together; the first problem found is thrown.
    public func validate() throws(TrailQueryError) {
        if let near {
            guard (-90...90).contains(near.lat) else {
                throw .invalid(parameter: "near", reason: "latitude \(near.lat) is outside -90...90")
            }
            guard (-180...180).contains(near.lon) else {
                throw .invalid(parameter: "near", reason: "longitude \(near.lon) is outside -180...180")
            }
            guard radiusKm != nil else { throw .invalid(parameter: "radiusKm", reason: "a search near a point needs a radius") }
        }
        if let radiusKm {
            guard near != nil else { throw .contradictory(parameters: ["radiusKm", "near"], reason: "a radius needs a point") }
            guard radiusKm.isFinite, radiusKm > 0 else {
                throw .invalid(parameter: "radiusKm", reason: "must be greater than 0, got \(radiusKm)")
            }
            guard radiusKm <= Self.maxRadiusKm else {
                throw .invalid(parameter: "radiusKm", reason: "must be at most \(Int(Self.maxRadiusKm))")
            }
        }
        if let bbox {
            if near != nil { throw .contradictory(parameters: ["near", "bbox"], reason: "give a point and radius or a box, not both") }
            for (v, name, range) in [
                (bbox.west, "west", -180.0...180.0), (bbox.east, "east", -180...180),
                (bbox.south, "south", -90...90), (bbox.north, "north", -90...90)
            ] where !range.contains(v) {
                throw .invalid(parameter: "bbox", reason: "\(name) \(v) is outside \(range.lowerBound)...\(range.upperBound)")
            }
            if bbox.west > bbox.east, !(bbox.west > 0 && bbox.east < 0) {
                throw .contradictory(
                    parameters: ["bbox"],
                    reason: "west \(bbox.west) is east of east \(bbox.east) (a box across the antimeridian has west > 0 > east)")
            }
            guard bbox.south <= bbox.north else {
                throw .invalid(parameter: "bbox", reason: "south \(bbox.south) is north of north \(bbox.north)")
            }
        }
        if let minLengthKm, !(minLengthKm.isFinite && minLengthKm >= 0) {
            throw .invalid(parameter: "minLengthKm", reason: "must be 0 or more, got \(minLengthKm)")
        }
        if let maxLengthKm, !(maxLengthKm.isFinite && maxLengthKm >= 0) {
            throw .invalid(parameter: "maxLengthKm", reason: "must be 0 or more, got \(maxLengthKm)")
        }
        if let maxAscentM, !(maxAscentM.isFinite && maxAscentM >= 0) {
            throw .invalid(parameter: "maxAscentM", reason: "must be 0 or more, got \(maxAscentM)")
        }
        if let maxGradePct, !(maxGradePct.isFinite && maxGradePct >= 0) {
            throw .invalid(parameter: "maxGradePct", reason: "must be 0 or more, got \(maxGradePct)")
        }
        if let minLengthKm, let maxLengthKm, minLengthKm > maxLengthKm {
            throw .contradictory(
                parameters: ["minLengthKm", "maxLengthKm"], reason: "the minimum \(minLengthKm) is above the maximum \(maxLengthKm)")
        }
        if !uses.intersection(excludeUses).isEmpty {
            throw .contradictory(
                parameters: ["uses", "excludeUses"],
                reason: "\(uses.intersection(excludeUses).uses.map(\.rawValue).joined(separator: ", ")) both required and excluded")
        }
        guard (1...Self.maxLimit).contains(limit) else {
            throw .invalid(parameter: "limit", reason: "must be 1...\(Self.maxLimit), got \(limit)")
        }
        if effectiveSort == .distance, near == nil { throw .sortNeedsPoint }
        if let text, text.utf8.count > 200 { throw .invalid(parameter: "q", reason: "longer than 200 bytes") }
    }

    /// What identifies the query apart from its page (a cursor is only good for the same query).
    var fingerprint: String {
        let parts: [String] = [
            near.map { "\($0.lat),\($0.lon)" } ?? "", radiusKm.map { "\($0)" } ?? "",
            bbox.map { "\($0.west),\($0.south),\($0.east),\($0.north)" } ?? "", text ?? "",
            difficulties.map(\.rawValue).sorted().joined(separator: ","), "\(uses.rawValue)", "\(excludeUses.rawValue)",
            minLengthKm.map { "\($0)" } ?? "", maxLengthKm.map { "\($0)" } ?? "", effectiveSort.rawValue,
            maxAscentM.map { "\($0)" } ?? "", maxGradePct.map { "\($0)" } ?? ""
        ]
        return parts.joined(separator: "|")
    }
}

/// One search result.
public struct TrailHit: Sendable, Equatable {
    public var trail: TrailSummary
    /// Metres from the query's point to the trail's nearest point (nil without `near`).
    public var distanceMetres: Double?
    /// The bundles holding the trail (several when installed regions overlap).
    public var bundles: [String]

    public init(trail: TrailSummary, distanceMetres: Double?, bundles: [String]) {
        self.trail = trail
        self.distanceMetres = distanceMetres
        self.bundles = bundles
    }
}

/// A trail without its geometry (what a search returns).
public struct TrailSummary: Sendable, Equatable {
    public var id: TrailID
    public var name: String?
    public var ref: String?
    public var difficulty: TrailDifficulty
    public var allowedUses: TrailUses
    public var forbiddenUses: TrailUses
    public var surface: String?
    public var lengthMetres: Double
    public var bounds: TrailBox
    public var start: LonLat
    public var end: LonLat
    /// Ascent, descent and steepest grade, when the bundle stores them (a build with terrain).
    public var elevation: TrailElevation?

    init(
        id: TrailID, name: String?, ref: String?, difficulty: TrailDifficulty, allowedUses: TrailUses, forbiddenUses: TrailUses,
        surface: String?, lengthMetres: Double, bounds: TrailBox, start: LonLat, end: LonLat, elevation: TrailElevation? = nil
    ) {
        self.id = id
        self.name = name
        self.ref = ref
        self.difficulty = difficulty
        self.allowedUses = allowedUses
        self.forbiddenUses = forbiddenUses
        self.surface = surface
        self.lengthMetres = lengthMetres
        self.bounds = bounds
        self.start = start
        self.end = end
        self.elevation = elevation
    }

    /// A record's summary.
    public init(_ t: TrailRecord) {
        self.init(
            id: t.id, name: t.name, ref: t.ref, difficulty: t.difficulty, allowedUses: t.allowedUses, forbiddenUses: t.forbiddenUses,
            surface: t.surface, lengthMetres: t.lengthMetres, bounds: t.bounds, start: t.start, end: t.end)
    }
}

/// A page of results.
public struct TrailPage: Sendable, Equatable {
    public var hits: [TrailHit]
    /// Total matches of the query (all pages).
    public var total: Int
    /// Pass as `TrailQuery.cursor` for the next page; nil on the last.
    public var nextCursor: String?
}
