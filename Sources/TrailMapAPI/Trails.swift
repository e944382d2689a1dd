/// A region product holding a trail (discovery sells regions).
public struct TrailProduct: Codable, Sendable, Equatable {
    public var productId: String
    public var title: String
    /// True when the product is free or the caller owns it (the geometry is then theirs to read).
    public var owned: Bool

    public init(productId: String, title: String, owned: Bool) {
        self.productId = productId
        self.title = title
        self.owned = owned
    }

    public static var schema: JSONValue {
        Schema.object(["productId": Schema.string(), "title": Schema.string(), "owned": Schema.boolean])
    }
}

/// One trail as a search returns it: its facts, without the geometry.
public struct TrailResult: Codable, Sendable, Equatable {
    /// 16 hexadecimal digits, stable across rebuilds of the same source.
    public var id: String
    public var name: String?
    public var ref: String?
    /// `easy`, `moderate`, `hard`, `expert` or `unknown`.
    public var difficulty: String
    /// Of `foot`, `bicycle`, `horse`, `motor_vehicle`, `ski`.
    public var allowedUses: [String]
    public var forbiddenUses: [String]
    public var surface: String?
    /// Geodesic length on WGS 84, kilometres.
    public var lengthKm: Double
    /// `[west, south, east, north]` in degrees.
    public var bbox: [Double]
    /// `[longitude, latitude]` of its first and last points.
    public var start: [Double]
    public var end: [Double]
    /// From the search's point to the trail's nearest point, kilometres (searches near a point only).
    public var distanceKm: Double?
    /// The region products holding it.
    public var products: [TrailProduct]
    /// Total climb along the trail, metres, when a region holding it was built with terrain.
    public var ascentM: Double?
    /// Total descent along the trail, metres (with `ascentM`).
    public var descentM: Double?
    /// The steepest grade in either direction, percent (with `ascentM`).
    public var maxGradePct: Double?

    public init(
        id: String, name: String?, ref: String?, difficulty: String, allowedUses: [String], forbiddenUses: [String],
        surface: String?, lengthKm: Double, bbox: [Double], start: [Double], end: [Double], distanceKm: Double?,
        products: [TrailProduct], ascentM: Double? = nil, descentM: Double? = nil, maxGradePct: Double? = nil
    ) {
        self.id = id
        self.name = name
        self.ref = ref
        self.difficulty = difficulty
        self.allowedUses = allowedUses
        self.forbiddenUses = forbiddenUses
        self.surface = surface
        self.lengthKm = lengthKm
        self.bbox = bbox
        self.start = start
        self.end = end
        self.distanceKm = distanceKm
        self.products = products
        self.ascentM = ascentM
        self.descentM = descentM
        self.maxGradePct = maxGradePct
    }

    /// The difficulty ladder.
    public static let difficulties = ["easy", "moderate", "hard", "expert", "unknown"]
    /// The uses a trail may allow or forbid.
    public static let uses = ["foot", "bicycle", "horse", "motor_vehicle", "ski"]

    public static var schema: JSONValue {
        let degrees = Schema.number
        return Schema.object(
            [
                "id": Schema.string(pattern: "^[0-7][0-9a-f]{15}$"), "name": Schema.string(), "ref": Schema.string(),
                "difficulty": Schema.string(enum: difficulties),
                "allowedUses": Schema.array(Schema.string(enum: uses)), "forbiddenUses": Schema.array(Schema.string(enum: uses)),
                "surface": Schema.string(), "lengthKm": Schema.number,
                "bbox": Schema.array(degrees, minItems: 4, maxItems: 4, description: "west, south, east, north in degrees"),
                "start": Schema.array(degrees, minItems: 2, maxItems: 2), "end": Schema.array(degrees, minItems: 2, maxItems: 2),
                "distanceKm": Schema.number, "products": Schema.array(Schema.ref("TrailProduct")),
                "ascentM": Schema.number, "descentM": Schema.number, "maxGradePct": Schema.number
            ], optional: ["name", "ref", "surface", "distanceKm", "ascentM", "descentM", "maxGradePct"])
    }
}

/// `GET /trails` answer: a page of results.
public struct TrailSearchResult: Codable, Sendable, Equatable {
    public var trails: [TrailResult]
    /// Matches of the query over every page.
    public var total: Int
    /// Pass as `cursor` for the next page; absent on the last.
    public var nextCursor: String?
    /// The place a `near` name was found as (`[longitude, latitude]` and its name).
    public var place: TrailPlace?

    public init(trails: [TrailResult], total: Int, nextCursor: String?, place: TrailPlace?) {
        self.trails = trails
        self.total = total
        self.nextCursor = nextCursor
        self.place = place
    }

    public static var schema: JSONValue {
        Schema.object(
            [
                "trails": Schema.array(Schema.ref("TrailResult")), "total": Schema.integer(minimum: 0),
                "nextCursor": Schema.string(), "place": Schema.ref("TrailPlace")
            ],
            optional: ["nextCursor", "place"])
    }
}

/// A place of the operator's gazetteer.
public struct TrailPlace: Codable, Sendable, Equatable {
    public var name: String
    /// `[longitude, latitude]`.
    public var point: [Double]

    public init(name: String, point: [Double]) {
        self.name = name
        self.point = point
    }

    public static var schema: JSONValue {
        Schema.object(["name": Schema.string(), "point": Schema.array(Schema.number, minItems: 2, maxItems: 2)])
    }
}

/// `GET /trails/{trailId}` answer: the trail, and its line for a caller entitled to a region
/// holding it (free regions: everyone).
public struct TrailDetail: Codable, Sendable, Equatable {
    public var trail: TrailResult
    /// A GeoJSON `Feature` with a `LineString` or `MultiLineString` (absent when not entitled).
    public var geometry: JSONValue?
    /// `/api/v1/trails/{trailId}/gpx` (absent when not entitled).
    public var gpxURL: String?

    public init(trail: TrailResult, geometry: JSONValue?, gpxURL: String?) {
        self.trail = trail
        self.geometry = geometry
        self.gpxURL = gpxURL
    }

    public static var schema: JSONValue {
        Schema.object(
            [
                "trail": Schema.ref("TrailResult"),
                "geometry": ["type": "object", "description": "a GeoJSON Feature"],
                "gpxURL": Schema.string()
            ], optional: ["geometry", "gpxURL"])
    }
}

/// What a region's trails add up to, in its product detail.
public struct TrailsSummary: Codable, Sendable, Equatable {
    public var count: Int
    /// Trails per difficulty (`easy` ... `unknown`; every difficulty, 0 where none).
    public var byDifficulty: [String: Int]
    /// All the trails' geodesic length, kilometres.
    public var totalLengthKm: Double
    /// The longest named trails, longest first (ids, names, difficulties and lengths).
    public var longest: [TrailResult]

    public init(count: Int, byDifficulty: [String: Int], totalLengthKm: Double, longest: [TrailResult]) {
        self.count = count
        self.byDifficulty = byDifficulty
        self.totalLengthKm = totalLengthKm
        self.longest = longest
    }

    public static var schema: JSONValue {
        Schema.object([
            "count": Schema.integer(minimum: 0),
            "byDifficulty": [
                "type": "object", "additionalProperties": Schema.integer(minimum: 0),
                "description": "trails per difficulty"
            ],
            "totalLengthKm": Schema.number, "longest": Schema.array(Schema.ref("TrailResult"))
        ])
    }
}
