/// Why a vector source cannot become trails. Each case names the file (and layer, feature or
/// field); the CLI words them.
public enum TrailIngestError: Error, Equatable, Sendable, CustomStringConvertible {
    /// GDAL cannot open the file as a vector dataset.
    case cannotOpen(path: String, reason: String)
    /// The file (or the chosen layers) holds no line features.
    case noLines(path: String)
    /// The file has lines, but the mapping's filter leaves none (e.g. an OpenStreetMap extract of roads only).
    case noneMatchFilter(path: String, lines: Int)
    /// A layer named in the options is not in the file.
    case noSuchLayer(path: String, layer: String)
    /// A layer with line features declares no coordinate reference system.
    case noCRS(path: String, layer: String)
    /// A CRS given by the caller cannot be read.
    case badCRS(input: String, reason: String)
    /// Coordinates cannot be transformed to WGS 84.
    case transformFailed(path: String, layer: String, reason: String)
    /// The mapping names a field the layer does not have.
    case missingField(path: String, layer: String, field: String, role: String)
    /// A feature's line geometry is empty, has fewer than two distinct points, or invalid coordinates.
    case degenerateGeometry(path: String, layer: String, feature: Int64, reason: String)
    /// A line crosses the antimeridian (±180°), which bundles do not hold.
    case crossesAntimeridian(path: String, layer: String, feature: Int64)
    /// A feature has more points than one trail may hold.
    case tooManyPoints(path: String, layer: String, feature: Int64, count: Int, limit: Int)
    /// A text field's value is not valid UTF-8.
    case invalidText(path: String, layer: String, feature: Int64, field: String)
    /// A mapping file that cannot be read or decoded.
    case badMapping(path: String, reason: String)
    /// GDAL failed while reading features.
    case readFailed(path: String, layer: String, reason: String)

    public var description: String {
        switch self {
        case let .cannotOpen(path, reason): "\(path): GDAL cannot open it as a vector file: \(reason)"
        case let .noLines(path): "\(path): no line features (LineString or MultiLineString) in it"
        case let .noneMatchFilter(path, lines): "\(path): none of its \(lines) lines passes the mapping's filter"
        case let .noSuchLayer(path, layer): "\(path): no layer named \(layer)"
        case let .noCRS(path, layer): "\(path): layer \(layer) declares no coordinate reference system"
        case let .badCRS(input, reason): "unknown coordinate reference system '\(input)': \(reason)"
        case let .transformFailed(path, layer, reason): "\(path): layer \(layer): cannot transform to WGS 84: \(reason)"
        case let .missingField(path, layer, field, role): "\(path): layer \(layer) has no field \(field) (mapped to \(role))"
        case let .degenerateGeometry(path, layer, feature, reason): "\(path): layer \(layer), feature \(feature): \(reason)"
        case let .crossesAntimeridian(path, layer, feature):
            "\(path): layer \(layer), feature \(feature): the line crosses the antimeridian"
        case let .tooManyPoints(path, layer, feature, count, limit):
            "\(path): layer \(layer), feature \(feature): \(count) points, more than the \(limit) a trail may have"
        case let .invalidText(path, layer, feature, field): "\(path): layer \(layer), feature \(feature): field \(field) is not valid UTF-8"
        case let .badMapping(path, reason): "\(path): not a trail field mapping: \(reason)"
        case let .readFailed(path, layer, reason): "\(path): layer \(layer): reading features failed: \(reason)"
        }
    }
}
