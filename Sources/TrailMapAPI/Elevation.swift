/// One point of `GET /elevation`'s answer.
public struct ElevationPoint: Codable, Sendable, Equatable {
    public var lat: Double
    public var lon: Double
    /// Metres; null where no published terrain the caller may read has an elevation (a void, or outside).
    public var elevationM: Double?

    public init(lat: Double, lon: Double, elevationM: Double?) {
        self.lat = lat
        self.lon = lon
        self.elevationM = elevationM
    }

    private enum CodingKeys: String, CodingKey { case lat, lon, elevationM }

    /// `elevationM` is always present, null for a void.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(lat, forKey: .lat)
        try c.encode(lon, forKey: .lon)
        try c.encode(elevationM, forKey: .elevationM)
    }

    public static var schema: JSONValue {
        Schema.object(["lat": Schema.number, "lon": Schema.number, "elevationM": nullableNumber])
    }

    /// A number or null.
    static let nullableNumber: JSONValue = ["type": ["number", "null"]]
}

/// `GET /elevation` answer: the points in the order asked.
public struct ElevationAnswer: Codable, Sendable, Equatable {
    public var points: [ElevationPoint]

    public init(points: [ElevationPoint]) { self.points = points }

    /// The most points one request may ask for.
    public static let maxPoints = 1000

    public static var schema: JSONValue {
        Schema.object(["points": Schema.array(Schema.ref("ElevationPoint"), maxItems: maxPoints)])
    }
}

/// A sample of a profile: every `spacingM` metres along the line, and at its end.
public struct ProfileSampleBody: Codable, Sendable, Equatable {
    public var distanceM: Double
    /// Null for a void.
    public var elevationM: Double?
    /// Percent from the previous sample; null for the first one and next to a void.
    public var gradePct: Double?
    public var lat: Double
    public var lon: Double

    public init(distanceM: Double, elevationM: Double?, gradePct: Double?, lat: Double, lon: Double) {
        self.distanceM = distanceM
        self.elevationM = elevationM
        self.gradePct = gradePct
        self.lat = lat
        self.lon = lon
    }

    private enum CodingKeys: String, CodingKey { case distanceM, elevationM, gradePct, lat, lon }

    /// `elevationM` and `gradePct` are always present, null where unknown.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(distanceM, forKey: .distanceM)
        try c.encode(elevationM, forKey: .elevationM)
        try c.encode(gradePct, forKey: .gradePct)
        try c.encode(lat, forKey: .lat)
        try c.encode(lon, forKey: .lon)
    }

    public static var schema: JSONValue {
        Schema.object([
            "distanceM": Schema.number, "elevationM": ElevationPoint.nullableNumber,
            "gradePct": ElevationPoint.nullableNumber, "lat": Schema.number, "lon": Schema.number
        ])
    }
}

/// The lowest or highest sample of a profile.
public struct ProfileExtreme: Codable, Sendable, Equatable {
    public var distanceM: Double
    public var elevationM: Double
    public var lat: Double
    public var lon: Double

    public init(distanceM: Double, elevationM: Double, lat: Double, lon: Double) {
        self.distanceM = distanceM
        self.elevationM = elevationM
        self.lat = lat
        self.lon = lon
    }

    public static var schema: JSONValue {
        Schema.object(["distanceM": Schema.number, "elevationM": Schema.number, "lat": Schema.number, "lon": Schema.number])
    }
}

/// `POST /profile` and `GET /trails/{trailId}/profile` answer.
public struct ProfileAnswer: Codable, Sendable, Equatable {
    public var lengthM: Double
    public var ascentM: Double
    public var descentM: Double
    /// The steepest uphill grade, percent (null when no two adjacent samples have elevations).
    public var maxGradePct: Double?
    /// The steepest downhill grade, percent (negative).
    public var minGradePct: Double?
    public var lowest: ProfileExtreme
    public var highest: ProfileExtreme
    /// The spacing used, metres (the one asked for, widened for a very long line).
    public var spacingM: Double
    public var samples: [ProfileSampleBody]

    public init(
        lengthM: Double, ascentM: Double, descentM: Double, maxGradePct: Double?, minGradePct: Double?,
        lowest: ProfileExtreme, highest: ProfileExtreme, spacingM: Double, samples: [ProfileSampleBody]
    ) {
        self.lengthM = lengthM
        self.ascentM = ascentM
        self.descentM = descentM
        self.maxGradePct = maxGradePct
        self.minGradePct = minGradePct
        self.lowest = lowest
        self.highest = highest
        self.spacingM = spacingM
        self.samples = samples
    }

    private enum CodingKeys: String, CodingKey {
        case lengthM, ascentM, descentM, maxGradePct, minGradePct, lowest, highest, spacingM, samples
    }

    /// The grades are always present, null where unknown.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(lengthM, forKey: .lengthM)
        try c.encode(ascentM, forKey: .ascentM)
        try c.encode(descentM, forKey: .descentM)
        try c.encode(maxGradePct, forKey: .maxGradePct)
        try c.encode(minGradePct, forKey: .minGradePct)
        try c.encode(lowest, forKey: .lowest)
        try c.encode(highest, forKey: .highest)
        try c.encode(spacingM, forKey: .spacingM)
        try c.encode(samples, forKey: .samples)
    }

    public static var schema: JSONValue {
        Schema.object([
            "lengthM": Schema.number, "ascentM": Schema.number, "descentM": Schema.number,
            "maxGradePct": ElevationPoint.nullableNumber, "minGradePct": ElevationPoint.nullableNumber,
            "lowest": Schema.ref("ProfileExtreme"), "highest": Schema.ref("ProfileExtreme"), "spacingM": Schema.number,
            "samples": Schema.array(Schema.ref("ProfileSample"))
        ])
    }
}

/// `POST /profile`'s body: a GeoJSON LineString, or a Feature holding one. Its positions are
/// `[longitude, latitude]` (a third number, an altitude, is ignored).
public enum ProfileLine {
    /// The most positions a line may have.
    public static let maxPositions = 100_000

    public static var lineStringSchema: JSONValue {
        let position = Schema.array(Schema.number, minItems: 2, maxItems: 3, description: "longitude, latitude in degrees")
        return Schema.object([
            "type": Schema.string(enum: ["LineString"]),
            "coordinates": Schema.array(position, minItems: 2, maxItems: maxPositions)
        ])
    }

    public static var featureSchema: JSONValue {
        Schema.object(
            [
                "type": Schema.string(enum: ["Feature"]), "geometry": Schema.ref("ProfileLineString"),
                "properties": ["type": ["object", "null"]]
            ], optional: ["properties"])
    }

    public static var schema: JSONValue {
        ["oneOf": [Schema.ref("ProfileLineString"), Schema.ref("ProfileFeature")]]
    }
}
