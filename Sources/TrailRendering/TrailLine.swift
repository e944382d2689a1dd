/// The difficulty ladder a trail's colour is chosen by.
public enum TrailDifficultyStyleKey: String, Codable, Sendable, CaseIterable, Comparable {
    /// The ladder of issue 37, as manifests spell it.
    case easy, moderate, hard, expert, unknown

    /// Drawing order: unknown first (bottom), then easy up to expert (top).
    var rank: Int {
        switch self {
        case .unknown: 0
        case .easy: 1
        case .moderate: 2
        case .hard: 3
        case .expert: 4
        }
    }

    /// Ordered as drawn: unknown, easy, moderate, hard, expert.
    public static func < (a: Self, b: Self) -> Bool { a.rank < b.rank }
}

/// One trail line to draw: coordinates in degrees (EPSG:4326), longitude first.
public struct TrailLine: Sendable, Equatable {
    /// A stable identifier; it orders drawing and label placement.
    public var id: String
    /// The trail's name, drawn as labels along the line at high zooms; nil or empty for none.
    public var name: String?
    /// The difficulty the line's colour comes from.
    public var difficulty: TrailDifficultyStyleKey
    /// The vertices as longitude, latitude pairs: `[lon0, lat0, lon1, lat1, ...]`.
    public var coordinates: [Double]

    /// A line from a flat `[lon, lat, lon, lat, ...]` array.
    public init(id: String, name: String? = nil, difficulty: TrailDifficultyStyleKey = .unknown, coordinates: [Double]) {
        self.id = id
        self.name = name
        self.difficulty = difficulty
        self.coordinates = coordinates
    }

    /// A line from longitude, latitude pairs.
    public init(id: String, name: String? = nil, difficulty: TrailDifficultyStyleKey = .unknown, points: [(lon: Double, lat: Double)]) {
        var flat = [Double]()
        flat.reserveCapacity(points.count * 2)
        for p in points { flat.append(p.lon); flat.append(p.lat) }
        self.init(id: id, name: name, difficulty: difficulty, coordinates: flat)
    }

    /// The number of vertices.
    public var pointCount: Int { coordinates.count / 2 }
}
