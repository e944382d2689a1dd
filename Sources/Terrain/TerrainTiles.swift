import TileGeometry

/// A set of terrain tiles (one bundle, or one served tileset): the encoding its pixels use, its
/// zoom levels, and its tiles' encoded bytes. Implementations are safe to call from many threads.
public protocol TerrainTiles: Sendable {
    /// The name errors give for it (a path or a tileset id).
    var name: String { get }
    var encoding: TerrainEncoding { get }
    var zooms: ClosedRange<Int> { get }
    /// The encoded tile (lossless PNG or WebP) at an address, or nil when there is none.
    func tileData(_ tile: TileID) throws(ElevationError) -> [UInt8]?
}
