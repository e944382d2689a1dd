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

    /// Two words for the hasher, not four fields (x and y are below 2^22, z below 32): every
    /// cache lookup hashes a key.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(UInt64(truncatingIfNeeded: tile.x) << 32 | UInt64(truncatingIfNeeded: tile.y))
        hasher.combine(UInt64(bundle) << 8 | UInt64(truncatingIfNeeded: tile.z))
    }
}
