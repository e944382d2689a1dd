import Trails

/// How `TrailIngest` reads a vector file.
public struct TrailIngestOptions: Sendable {
    /// The field mapping; nil: the OpenStreetMap preset for `.osm` / `.osm.pbf` / `.pbf` files,
    /// else `name` and `ref` fields when present.
    public var mapping: TrailFieldMapping?
    /// Join segments of one named trail (same name and ref, ends within `joinToleranceMetres`).
    public var join = false
    public var joinToleranceMetres = 5.0
    /// CRS of layers that declare none (EPSG code, WKT or PROJ string); nil: such layers are an error.
    public var assumedCRS: String?
    /// Most points one feature may have.
    public var maxPointsPerTrail = 200_000
    /// Skip features with bad geometry or text (reported in `TrailIngestResult.skipped`) instead of failing.
    public var skipInvalidFeatures = false

    public init(mapping: TrailFieldMapping? = nil, join: Bool = false) {
        self.mapping = mapping
        self.join = join
    }

    /// Whether `path` names an OpenStreetMap file (by its extension).
    public static func isOSM(path: String) -> Bool {
        let lower = path.lowercased()
        return lower.hasSuffix(".osm") || lower.hasSuffix(".pbf") || lower.hasSuffix(".osm.bz2")
    }
}

/// What `TrailIngest` read.
public struct TrailIngestResult: Sendable {
    /// The trails, by id.
    public var trails: [TrailRecord] = []
    /// Line features read (before filtering and joining).
    public var lineFeatures = 0
    /// Features the mapping's filter left out.
    public var filteredOut = 0
    /// Features without line geometry (points, polygons) in the layers read.
    public var nonLineFeatures = 0
    /// Features that were the same trail as one read before (same id), left out.
    public var duplicates = 0
    /// Features skipped for bad geometry or text (with `skipInvalidFeatures`).
    public var skipped: [TrailIngestError] = []
    /// Trails that were made by joining several segments.
    public var joinedTrails = 0

    public init() {}
}
