import Foundation

/// The image format of a bundle's tiles, as MBTiles metadata `format` names it.
public enum TileFormat: String, CaseIterable, Sendable, Codable, CustomStringConvertible {
    /// Lossless PNG.
    case png
    /// WebP, lossless or lossy, with alpha.
    case webp
    /// JPEG for fully opaque tiles, PNG for tiles with any transparency (JPEG has no alpha), as
    /// GDAL's MBTiles driver writes `TILE_FORMAT=PNG_JPEG`.
    case jpg

    public var description: String { rawValue }

    /// The format a bundle's metadata declares (`png`, `webp`, `jpg` or `jpeg`); nil otherwise.
    public init?(metadata value: String) {
        switch value.lowercased() {
        case "png": self = .png
        case "webp": self = .webp
        case "jpg", "jpeg": self = .jpg
        default: return nil
        }
    }

    /// The file extension of tile URLs and exported files.
    public var fileExtension: String { rawValue }

    /// The formats one tile of a bundle in this format may be in (`jpg` bundles hold PNG edges).
    public var tileFormats: [TileFormat] { self == .jpg ? [.jpg, .png] : [self] }

    /// The MIME type of tiles in this format.
    public var contentType: String {
        switch self {
        case .png: "image/png"
        case .webp: "image/webp"
        case .jpg: "image/jpeg"
        }
    }

    /// The format of one encoded tile, from its magic numbers; nil when it is none of them.
    public static func sniff<C: Collection>(_ bytes: C) -> TileFormat? where C.Element == UInt8 {
        let head = Array(bytes.prefix(12))
        if head.count >= 8 && head[0..<8] == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] { return .png }
        if head.count >= 3 && head[0..<3] == [0xFF, 0xD8, 0xFF] { return .jpg }
        if head.count >= 12 && head[0..<4] == [0x52, 0x49, 0x46, 0x46] && head[8..<12] == [0x57, 0x45, 0x42, 0x50] { return .webp }
        return nil
    }

    /// The MIME type of one encoded tile from its magic numbers (`application/octet-stream` when unknown).
    public static func contentType<C: Collection>(of bytes: C) -> String where C.Element == UInt8 {
        sniff(bytes)?.contentType ?? "application/octet-stream"
    }
}
