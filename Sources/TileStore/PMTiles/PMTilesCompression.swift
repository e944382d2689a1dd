/// The header's compression enum (internal compression of directories and metadata, and tile compression).
public enum PMTilesCompression: Sendable, Equatable, CustomStringConvertible {
    case unknown, none, gzip, brotli, zstd
    /// A value the specification does not define.
    case other(UInt8)

    public init(_ byte: UInt8) {
        switch byte {
        case 0: self = .unknown
        case 1: self = .none
        case 2: self = .gzip
        case 3: self = .brotli
        case 4: self = .zstd
        default: self = .other(byte)
        }
    }

    public var description: String {
        switch self {
        case .unknown: "unknown"
        case .none: "none"
        case .gzip: "gzip"
        case .brotli: "brotli"
        case .zstd: "zstd"
        case let .other(v): "compression \(v) (undefined)"
        }
    }
}
