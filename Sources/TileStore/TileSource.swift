import TileGeometry

/// An open tileset file that answers tile lookups: an MBTiles bundle's read pool
/// (`TileReadPool`) or a PMTiles archive's reader (`PMTilesReader`). The server's cache and
/// bundle manager hold sources through this protocol only; `TileSourceKind` opens one.
/// Implementations are safe to call from many threads at once.
public protocol TileSource: AnyObject, Sendable {
    /// Looks up a tile and passes its bytes and its stored content id (TrailMap bundles' content
    /// hash; nil where the file stores none) to `body`; returns nil when the file has no such
    /// tile. The bytes are valid only inside `body`.
    func withTile<R>(_ tile: TileID, _ body: (UnsafeRawBufferPointer, String?) throws -> R) throws -> R?
}

extension TileReadPool: TileSource {}
