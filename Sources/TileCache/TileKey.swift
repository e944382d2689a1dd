import TileGeometry

/// What the cache is keyed by: a tile of one opened bundle. `bundle` is the bundle's generation
/// number (a new number each time a file is opened), so tiles of a replaced file never answer
/// for its successor.
public struct TileKey: Hashable, Sendable, CustomStringConvertible {
    public var bundle: UInt32
    public var tile: TileID

    public init(bundle: UInt32, tile: TileID) {
        self.bundle = bundle
        self.tile = tile
    }

    public var description: String { "\(bundle):\(tile)" }
}
