import Logging
import SourceReaders

/// What a build tells its user along the way that is not an error, with the facts to word it.
/// The builder logs each at its `level`, worded by `BundleBuilder.noticeWording` (by default
/// `description`, which names no command-line flag).
public enum BuildNotice: Sendable, Equatable, CustomStringConvertible {
    /// An option given for a layer's sources does not apply to these (the first named, how many
    /// others).
    case optionNotApplied(IgnoredReadOption, path: String, others: Int)
    /// A layer's non-8-bit sources are mapped to 8 bits from their joint range (no range given).
    case sharedScale(layer: String, min: Double, max: Double)
    /// The bundle holds no tiles: every pixel of the sources is transparent at these zooms.
    case noTiles(output: String, minZoom: Int, maxZoom: Int)
    /// Fewer rendering threads than asked: what the memory limit leaves room for.
    case fewerRenderThreads(used: Int, asked: Int)

    /// The level it is logged at.
    public var level: Logger.Level {
        switch self {
        case .optionNotApplied, .noTiles: .warning
        case .sharedScale: .info
        case .fewerRenderThreads: .notice
        }
    }

    /// "PATH and N other source(s) like it" for a notice about several sources.
    public static func sources(_ path: String, others: Int) -> String {
        others > 0 ? "\(path) and \(others) other source(s) like it" : path
    }

    public var description: String {
        switch self {
        case let .optionNotApplied(option, path, others): "\(Self.sources(path, others: others)): \(option)"
        case let .sharedScale(layer, min, max):
            "layer \(layer): non-8-bit bands mapped from \(min) to \(max), the sources' joint range (a value range to scale chooses it)"
        case let .noTiles(output, minZoom, maxZoom):
            """
            \(output) holds no tiles: every pixel of the sources is transparent (nodata, alpha or mask) at zoom \(minZoom)-\(maxZoom); \
            check the nodata values and bands read
            """
        case let .fewerRenderThreads(used, asked):
            "\(used) rendering threads instead of \(asked): that is what the memory limit leaves room for"
        }
    }
}
