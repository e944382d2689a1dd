/// Problems writing or reading the trails of a bundle.
public enum TrailStoreError: Error, Equatable, Sendable, CustomStringConvertible {
    case notFound(path: String)
    /// The file is not an MBTiles bundle (no `tiles` or `metadata`).
    case notBundle(path: String, reason: String)
    /// The bundle holds no trails tables.
    case noTrails(path: String)
    /// The trails tables are of another version or damaged.
    case badTrailsSchema(path: String, reason: String)
    case sqlite(path: String, message: String)
    /// Two trails with one id.
    case duplicateID(path: String, id: TrailID)
    /// A stored geometry that does not decode.
    case badGeometry(path: String, id: TrailID)
    /// Two bundles hold one trail id with different data (a copy that needs them to agree).
    case conflictingTrail(id: TrailID, paths: [String])

    public var description: String {
        switch self {
        case let .notFound(path): "\(path): no such file"
        case let .notBundle(path, reason): "\(path): not an MBTiles bundle: \(reason)"
        case let .noTrails(path): "\(path): the bundle holds no trails"
        case let .badTrailsSchema(path, reason): "\(path): unreadable trails tables: \(reason)"
        case let .sqlite(path, message): "\(path): database error: \(message)"
        case let .duplicateID(path, id): "\(path): two trails with id \(id)"
        case let .badGeometry(path, id): "\(path): trail \(id) has a damaged geometry"
        case let .conflictingTrail(id, paths): "trail \(id) differs between \(paths.joined(separator: " and "))"
        }
    }
}

/// A query that cannot be answered as asked; each case names the parameter.
public enum TrailQueryError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A parameter out of its range (e.g. a latitude of 95, a negative limit).
    case invalid(parameter: String, reason: String)
    /// Two parameters that cannot hold together (min length above max, near and bbox both).
    case contradictory(parameters: [String], reason: String)
    /// A cursor not made by this query's previous page.
    case badCursor
    /// Sorting by distance without a point.
    case sortNeedsPoint

    public var description: String {
        switch self {
        case let .invalid(parameter, reason): "\(parameter): \(reason)"
        case let .contradictory(parameters, reason): "\(parameters.joined(separator: " and ")): \(reason)"
        case .badCursor: "cursor: not a cursor of this query"
        case .sortNeedsPoint: "sort: sorting by distance needs a point to measure from"
        }
    }
}
