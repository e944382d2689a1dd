/// Why elevations cannot be read; each case names the file (bundle or DEM) it comes from.
public enum ElevationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file cannot be opened or read as a terrain bundle or an elevation raster.
    case unreadable(path: String, reason: String)
    /// A terrain bundle's metadata names no encoding, or one that is not known.
    case unknownEncoding(path: String, found: String?)
    /// A terrain bundle's zoom levels are missing or out of range.
    case badZooms(path: String, detail: String)
    /// A tile of a terrain bundle cannot be decoded or is not a square tile of an accepted size.
    case badTile(path: String, tile: String, detail: String)
    /// An elevation raster has no georeference (geotransform) or no coordinate reference system.
    case notGeoreferenced(path: String)
    /// An elevation raster's vertical unit is neither metres nor feet.
    case unknownVerticalUnit(path: String, unit: String)

    public var description: String {
        switch self {
        case let .unreadable(path, reason): "\(path): cannot be read: \(reason)"
        case let .unknownEncoding(path, found):
            if let found {
                "\(path): unknown terrain encoding '\(found)' (terrarium or mapbox)"
            } else {
                "\(path): not a terrain bundle: its metadata names no encoding"
            }
        case let .badZooms(path, detail): "\(path): bad zoom levels: \(detail)"
        case let .badTile(path, tile, detail): "\(path): tile \(tile): \(detail)"
        case let .notGeoreferenced(path): "\(path): the elevation raster has no georeference or no coordinate reference system"
        case let .unknownVerticalUnit(path, unit): "\(path): unknown vertical unit '\(unit)' (metres or feet)"
        }
    }
}
