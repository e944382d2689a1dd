/// The kinds of tileset file TrailMap serves, and how to open each as a `TileSource`.
public enum TileSourceKind: Sendable, Equatable {
    /// An MBTiles bundle (SQLite) in the given layout.
    case mbtiles(BundleLayout)
    /// A PMTiles v3 archive.
    case pmtiles

    /// Opens a source on `path` (which may be `/proc/self/fd/N`).
    public func open(path: String) throws(TileStoreError) -> any TileSource {
        switch self {
        case let .mbtiles(layout): try TileReadPool(path: path, layout: layout)
        case .pmtiles: try PMTilesReader(path: path)
        }
    }
}
