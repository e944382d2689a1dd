/// Why a profile (or a list of elevations) cannot be made. Indexes count from 0.
public enum ProfileError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A line needs at least two points.
    case tooFewPoints(count: Int)
    /// More points than the stated limit (refused before any of them is read).
    case tooManyPoints(count: Int, limit: Int)
    /// A latitude that is not a number within ±90 degrees.
    case latitudeOutOfRange(index: Int, value: Double)
    /// A longitude that is not a number within ±180 degrees.
    case longitudeOutOfRange(index: Int, value: Double)
    /// A sample spacing that is not a positive number of metres.
    case badSpacing(Double)
    /// No point of the line lies on any terrain (outside every bundle, or all voids).
    case noElevation
    /// The elevation source failed.
    case source(ElevationError)

    public var description: String {
        switch self {
        case let .tooFewPoints(count): "a line needs at least 2 points, found \(count)"
        case let .tooManyPoints(count, limit): "\(count) points is more than the limit of \(limit)"
        case let .latitudeOutOfRange(index, value): "point \(index): latitude \(value) is outside -90 to 90"
        case let .longitudeOutOfRange(index, value): "point \(index): longitude \(value) is outside -180 to 180"
        case let .badSpacing(value): "spacing \(value) is not a positive number of metres"
        case .noElevation: "no point of the line has an elevation: it lies outside every terrain bundle"
        case let .source(e): e.description
        }
    }
}
