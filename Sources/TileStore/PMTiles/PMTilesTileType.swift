/// The header's tile type.
public enum PMTilesTileType: Sendable, Equatable, CustomStringConvertible {
    case unknown, mvt, png, jpeg, webp, avif, mlt
    /// A value the specification does not define.
    case other(UInt8)

    public init(_ byte: UInt8) {
        switch byte {
        case 0: self = .unknown
        case 1: self = .mvt
        case 2: self = .png
        case 3: self = .jpeg
        case 4: self = .webp
        case 5: self = .avif
        case 6: self = .mlt
        default: self = .other(byte)
        }
    }

    /// The MBTiles `format` of a raster type TrailMap serves (`png`, `jpg`, `webp`), else nil.
    public var rasterFormat: String? {
        switch self {
        case .png: "png"
        case .jpeg: "jpg"
        case .webp: "webp"
        default: nil
        }
    }

    /// Whether TrailMap serves (and `bundle verify` passes) an archive of this type: a raster
    /// type it serves, or `unknown`, whose tiles' formats are read from their bytes. The one
    /// place that decides.
    public var isServable: Bool { self == .unknown || rasterFormat != nil }

    public var description: String {
        switch self {
        case .unknown: "unknown"
        case .mvt: "MVT vector tiles"
        case .png: "PNG"
        case .jpeg: "JPEG"
        case .webp: "WebP"
        case .avif: "AVIF"
        case .mlt: "MapLibre vector tiles"
        case let .other(v): "tile type \(v) (undefined)"
        }
    }
}
