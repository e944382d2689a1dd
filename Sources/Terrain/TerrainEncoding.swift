/// How an elevation is packed into a tile pixel's red, green and blue bytes, as MapLibre's
/// `raster-dem` source reads them (its `encoding` property).
///
/// A terrain tile is a lossless PNG or WebP. A pixel whose alpha is 0 is a void (no elevation);
/// every other pixel is opaque and carries an elevation in metres.
public enum TerrainEncoding: String, Sendable, CaseIterable, Codable {
    /// Mapzen Terrarium: `elevation = R × 256 + G + B / 256 − 32768`, a step of 1/256 m.
    case terrarium
    /// Mapbox Terrain-RGB: `elevation = −10000 + (R × 65536 + G × 256 + B) × 0.1`, a step of 0.1 m.
    case mapbox

    /// The metadata key (MBTiles `metadata` table, TileJSON field) that names the encoding.
    public static let metadataKey = "encoding"

    /// The value written under ``metadataKey`` and in TileJSON (MapLibre's names).
    public var metadataValue: String { rawValue }

    /// The encoding a metadata value names, or nil for anything else.
    public init?(metadataValue: String) {
        self.init(rawValue: metadataValue)
    }

    /// The smallest difference in metres the encoding can represent.
    public var step: Double {
        switch self {
        case .terrarium: 1.0 / 256.0
        case .mapbox: 0.1
        }
    }

    /// The lowest and highest elevations the encoding can hold, in metres.
    public var representableRange: ClosedRange<Double> {
        switch self {
        case .terrarium: -32768.0...(65535.0 + 255.0 / 256.0 - 32768.0)
        case .mapbox: -10000.0...(-10000.0 + Double(0xFF_FFFF) * 0.1)
        }
    }

    /// The elevation in metres that a pixel's red, green and blue bytes carry.
    @inlinable
    public func decode(red: UInt8, green: UInt8, blue: UInt8) -> Double {
        switch self {
        case .terrarium:
            return Double(red) * 256.0 + Double(green) + Double(blue) / 256.0 - 32768.0
        case .mapbox:
            let packed = (Int(red) << 16) | (Int(green) << 8) | Int(blue)
            return -10000.0 + Double(packed) * 0.1
        }
    }

    /// The red, green and blue bytes for an elevation in metres, rounded to the nearest step and
    /// clamped to ``representableRange``. A non-finite elevation is not an elevation: callers mark
    /// voids with alpha 0 instead of calling this.
    @inlinable
    public func encode(_ elevation: Double) -> (red: UInt8, green: UInt8, blue: UInt8) {
        switch self {
        case .terrarium:
            let scaled = ((elevation + 32768.0) * 256.0).rounded()
            let packed = Int(Swift.min(Swift.max(scaled, 0), Double(0xFF_FFFF)))
            return (UInt8(packed >> 16), UInt8((packed >> 8) & 0xFF), UInt8(packed & 0xFF))
        case .mapbox:
            let scaled = ((elevation + 10000.0) * 10.0).rounded()
            let packed = Int(Swift.min(Swift.max(scaled, 0), Double(0xFF_FFFF)))
            return (UInt8(packed >> 16), UInt8((packed >> 8) & 0xFF), UInt8(packed & 0xFF))
        }
    }
}
