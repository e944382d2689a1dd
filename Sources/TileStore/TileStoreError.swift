/// Problems opening, reading or writing a bundle (MBTiles or PMTiles).
public enum TileStoreError: Error, CustomStringConvertible, Equatable {
    case notFound(path: String)
    case notMBTiles(path: String, reason: String)
    case cannotCreate(path: String, reason: String)
    case sqlite(path: String, message: String)
    case invalidArgument(String)
    /// An export's folder holds `entries` files and the export was not asked to write over them.
    case folderNotEmpty(path: String, entries: Int)
    case unreadable(path: String, reason: String)
    /// A PMTiles archive that cannot be read: damaged, truncated, or of a kind TrailMap does not read.
    case pmtiles(path: String, problem: PMTilesProblem)

    /// The problem alone, without the file's path (for lists of one file's problems).
    public var problemDescription: String {
        if case let .pmtiles(_, problem) = self { problem.description } else { description }
    }

    public var description: String {
        switch self {
        case let .notFound(path): "\(path): no such file"
        case let .notMBTiles(path, reason): "\(path): not an MBTiles bundle: \(reason)"
        case let .cannotCreate(path, reason): "\(path): cannot create the bundle: \(reason)"
        case let .sqlite(path, message): "\(path): database error: \(message)"
        case let .invalidArgument(message): message
        case let .folderNotEmpty(path, entries): "\(path): folder is not empty (\(entries) entries); choose an empty or new folder"
        case let .unreadable(path, reason): "\(path): cannot read the file: \(reason)"
        case let .pmtiles(path, problem): "\(path): unreadable PMTiles archive: \(problem)"
        }
    }
}
