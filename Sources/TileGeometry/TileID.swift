/// An XYZ tile address: zoom `z`, column `x` from the west, row `y` from the north.
public struct TileID: Hashable, Sendable, CustomStringConvertible {
    /// The highest zoom level TrailMap accepts.
    public static let maxZoom = 22

    public let z: Int
    public let x: Int
    public let y: Int

    /// A tile id; fails when z is outside 0...maxZoom or x/y outside 0..<2^z.
    public init?(z: Int, x: Int, y: Int) {
        guard (0...TileID.maxZoom).contains(z) else { return nil }
        let n = 1 << z
        guard (0..<n).contains(x), (0..<n).contains(y) else { return nil }
        self.z = z
        self.x = x
        self.y = y
    }

    /// Unchecked initializer for ids computed by the geometry code itself.
    package init(unchecked z: Int, _ x: Int, _ y: Int) {
        self.z = z
        self.x = x
        self.y = y
    }

    /// The row in TMS order (counted from the south), as MBTiles stores it.
    public var tmsY: Int { (1 << z) - 1 - y }

    /// The XYZ row for a TMS row at zoom z.
    public static func xyzRow(fromTMS row: Int, zoom z: Int) -> Int { (1 << z) - 1 - row }

    /// The tile's extent in Web Mercator metres.
    public var mercatorBounds: MercatorBounds { WebMercator.tileBounds(self) }

    /// The tile's extent in degrees.
    public var geoBounds: GeoBounds { mercatorBounds.geoBounds }

    /// The tile one zoom level up that contains this one (nil at zoom 0).
    public var parent: TileID? {
        z == 0 ? nil : TileID(unchecked: z - 1, x >> 1, y >> 1)
    }

    /// The four tiles one zoom level down.
    public var children: [TileID] {
        [
            TileID(unchecked: z + 1, x * 2, y * 2), TileID(unchecked: z + 1, x * 2 + 1, y * 2),
            TileID(unchecked: z + 1, x * 2, y * 2 + 1), TileID(unchecked: z + 1, x * 2 + 1, y * 2 + 1)
        ]
    }

    public var description: String { "\(z)/\(x)/\(y)" }
}
