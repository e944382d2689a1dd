import CPNG

/// Why a PNG could not be read or written; `description` is a message a user understands.
public enum PNGError: Error, CustomStringConvertible, Equatable, Sendable {
    /// The data does not start with the PNG signature.
    case notPNG
    /// Zero bytes.
    case empty
    /// Damaged data: libpng's message, e.g. truncated data or a bad CRC.
    case corrupt(String)
    /// The image is larger than the caller's limit (or, if interlaced, than fits in memory).
    case tooLarge(width: Int, height: Int)
    /// The file cannot be opened or read; the message includes the system's reason.
    case io(String)
    /// Encoding failed.
    case encodeFailed(String)

    public var description: String {
        switch self {
        case .notPNG:
            return "not a PNG file"
        case .empty:
            return "empty PNG data (zero bytes)"
        case .corrupt(let message):
            return "corrupt PNG: \(message)"
        case .tooLarge(let width, let height):
            return "PNG too large to decode: \(width)×\(height) pixels"
                + " (large sources must be non-interlaced PNGs read row by row)"
        case .io(let message):
            return "cannot read PNG: \(message)"
        case .encodeFailed(let message):
            return "PNG encoding failed: \(message)"
        }
    }

    /// Maps a shim status and message to an error; `width`/`height` serve `.tooLarge`.
    static func fromShim(_ status: Int32, message: String, width: Int, height: Int) -> PNGError {
        switch status {
        case CPNG_ERR_NOT_PNG: return .notPNG
        case CPNG_ERR_EMPTY: return .empty
        case CPNG_ERR_TOO_LARGE: return .tooLarge(width: width, height: height)
        case CPNG_ERR_IO: return .io(message)
        case CPNG_ERR_ENCODE: return .encodeFailed(message)
        case CPNG_ERR_NOMEM: return .corrupt("out of memory: \(message)")
        default: return .corrupt(message)
        }
    }
}
