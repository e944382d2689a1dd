/// Why a gzip stream could not be decompressed.
public enum GzipError: Error, CustomStringConvertible, Equatable {
    /// The stream would decompress to more than the allowed number of bytes (a zip bomb, or a
    /// limit set too low for the data).
    case tooLarge(limit: Int)
    /// Not a gzip stream, damaged (bad header, checksum, data), or cut short.
    case corrupt(String)

    public var description: String {
        switch self {
        case let .tooLarge(limit): "the gzip data decompresses to more than \(limit) bytes"
        case let .corrupt(reason): "the gzip data is damaged: \(reason)"
        }
    }
}
