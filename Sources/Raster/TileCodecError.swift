/// Why a WebP or JPEG tile could not be written or read.
public enum TileCodecError: Error, CustomStringConvertible, Equatable, Sendable {
    case encodeFailed(format: TileFormat, String)
    case decodeFailed(format: TileFormat, String)
    /// The bytes are none of PNG, WebP, JPEG.
    case unknownFormat
    /// The tile is in another format than its bundle declares.
    case wrongFormat(declared: TileFormat, found: TileFormat)
    case png(PNGError)

    public var description: String {
        switch self {
        case let .encodeFailed(format, message): "\(format.rawValue.uppercased()) encoding failed: \(message)"
        case let .decodeFailed(format, message): "corrupt \(format.rawValue.uppercased()) tile: \(message)"
        case .unknownFormat: "not a PNG, WebP or JPEG image"
        case let .wrongFormat(declared, found):
            "a \(found.rawValue.uppercased()) tile in a bundle whose format is \(declared.rawValue)"
        case let .png(error): error.description
        }
    }
}
