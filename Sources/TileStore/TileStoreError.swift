/// Problems opening, reading or writing a bundle.
public enum TileStoreError: Error, CustomStringConvertible, Equatable {
    case notFound(path: String)
    case notMBTiles(path: String, reason: String)
    case cannotCreate(path: String, reason: String)
    case sqlite(path: String, message: String)
    case invalidArgument(String)
    case unreadable(path: String, reason: String)

    public var description: String {
        switch self {
        case let .notFound(path): "\(path): no such file"
        case let .notMBTiles(path, reason): "\(path): not an MBTiles bundle: \(reason)"
        case let .cannotCreate(path, reason): "\(path): cannot create the bundle: \(reason)"
        case let .sqlite(path, message): "\(path): database error: \(message)"
        case let .invalidArgument(message): message
        case let .unreadable(path, reason): "\(path): cannot read the file: \(reason)"
        }
    }
}
