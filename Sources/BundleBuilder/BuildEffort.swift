/// How hard a build works to make tiles small: the trade between build time and bundle bytes.
/// The measured time and bytes of each effort are in docs/notes/png-compression.md.
public enum BuildEffort: String, CaseIterable, Sendable, CustomStringConvertible {
    /// libdeflate level 6 for every tile.
    case fast
    /// libdeflate level 7 for every tile: the default, on the time/bytes frontier.
    case balanced
    /// Per tile: 7 for palettes, 8 for truecolour, 10 (near-optimal parsing) for dense truecolour.
    case small
    /// libdeflate level 12 for every tile (near-optimal parsing, slowest).
    case smallest

    public var description: String { rawValue }

    /// The libdeflate level every tile gets (before `small`'s per-tile choice).
    var level: Int {
        switch self {
        case .fast: 6
        case .balanced: 7
        case .small: 8
        case .smallest: 12
        }
    }

    /// libwebp's lossless preset (0 fastest – 9 smallest) for this effort.
    var webpLosslessPreset: Int {
        switch self {
        case .fast: 1
        case .balanced: 4
        case .small: 5
        case .smallest: 9
        }
    }

    /// libwebp's lossy method (0 fastest – 6 smallest) for this effort.
    var webpMethod: Int {
        switch self {
        case .fast: 2
        case .balanced: 4
        case .small: 5
        case .smallest: 6
        }
    }
}
