import TileGeometry

/// A set of terrain tiles (one bundle, or one served tileset): the encoding its pixels use, its
/// zoom levels, and its tiles' encoded bytes. Implementations are safe to call from many threads.
public protocol TerrainTiles: Sendable {
    /// The name errors give for it (a path or a tileset id).
    var name: String { get }
    /// What identifies these tiles in a shared `TerrainTileMemo` (default: `name`); a set
    /// replaced by another of the same name needs another key.
    var memoKey: String { get }
    var encoding: TerrainEncoding { get }
    var zooms: ClosedRange<Int> { get }
    /// The encoded tile (lossless PNG or WebP) at an address, or nil when there is none.
    func tileData(_ tile: TileID) throws(ElevationError) -> [UInt8]?
}

extension TerrainTiles {
    public var memoKey: String { name }
}
