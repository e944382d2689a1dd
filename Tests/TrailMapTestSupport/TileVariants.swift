import Raster
import TileGeometry

/// One kind of test bundle by its tiles: format, WebP lossless or lossy, tile size.
public struct TileVariant: Sendable, CustomStringConvertible {
    /// A short name, for files and test output (`png`, `webp-lossless`, `webp-lossy`, `jpg`, `webp-512`).
    public let name: String
    /// The bundle's format (metadata `format`).
    public let format: TileFormat
    /// WebP lossless rather than lossy (WebP variants only).
    public let lossless: Bool
    /// The tiles' width and height in pixels (metadata `trailmap:tilesize`).
    public let tileSize: Int

    public var description: String { name }

    public static let png = TileVariant(name: "png", format: .png, lossless: false, tileSize: 256)
    public static let webpLossless = TileVariant(name: "webp-lossless", format: .webp, lossless: true, tileSize: 256)
    public static let webpLossy = TileVariant(name: "webp-lossy", format: .webp, lossless: false, tileSize: 256)
    /// JPEG for opaque tiles, PNG for the partly transparent edge tiles.
    public static let jpg = TileVariant(name: "jpg", format: .jpg, lossless: false, tileSize: 256)
    public static let webp512 = TileVariant(name: "webp-512", format: .webp, lossless: false, tileSize: 512)

    public static let all: [TileVariant] = [.png, .webpLossless, .webpLossy, .jpg, .webp512]

    /// The encoder of this variant's tiles (lossy at quality 80).
    public var encoding: TileEncoding {
        var e = TileEncoding(png: .default)
        e.format = format
        e.lossless = lossless
        e.quality = 80
        return e
    }

    /// A tile in a format this variant's bundles may not hold: WebP in png and jpg bundles, PNG in
    /// WebP bundles.
    public func foreignTile(_ tile: TileID) throws -> [UInt8] {
        let image = VariantTiles.image(tile, size: tileSize)
        if format == .webp {
            var e = TileEncoding(png: .default)
            e.format = .png
            return try e.encode(image)
        }
        return try WebPCodec.encode(image, lossless: true, quality: 90, effort: 1)
    }
}

/// The tiles of the variant test bundles: every tile of `box` at `zooms`, in flat 16-px blocks of
/// colour (so lossy codecs keep them within a few levels); the tiles of the box's west column are
/// partly transparent (their left quarter), as a region's edge tiles are.
public enum VariantTiles {
    public static let box = GeoBounds(west: -110, south: 36, east: -101, north: 42)
    /// At zoom 6 the box spans three tile columns, at 5 two, at 4 one.
    public static let zooms = 4...6

    /// Whether a tile is one of the partly transparent edge tiles.
    public static func isEdge(_ t: TileID) -> Bool { t.x == TileRange(bounds: box, zoom: t.z).minX }

    /// The colour of the 16-px block at column `bx`, row `by` of tile `t`.
    public static func color(_ t: TileID, bx: Int, by: Int) -> (UInt8, UInt8, UInt8) {
        (
            UInt8(truncatingIfNeeded: t.z * 40 + bx * 7), UInt8(truncatingIfNeeded: t.x * 29 + by * 11),
            UInt8(truncatingIfNeeded: t.y * 53 + (bx ^ by) * 5)
        )
    }

    /// The pixels of a tile.
    public static func image(_ t: TileID, size: Int) -> RGBAImage {
        var image = RGBAImage(width: size, height: size)
        let edge = isEdge(t)
        for r in 0..<size {
            for c in 0..<size {
                let (red, green, blue) = color(t, bx: c * 256 / size / 16, by: r * 256 / size / 16)
                let p = (r * size + c) * 4
                image.pixels[p] = red
                image.pixels[p + 1] = green
                image.pixels[p + 2] = blue
                image.pixels[p + 3] = edge && c < size / 4 ? 0 : 255
            }
        }
        return image
    }

    /// Every tile of the box at `zooms`, encoded as `variant` encodes it.
    public static func tiles(_ variant: TileVariant) throws -> [TileID: [UInt8]] {
        let encoding = variant.encoding
        var tiles = [TileID: [UInt8]]()
        for z in zooms {
            for t in TileRange(bounds: box, zoom: z) {
                tiles[t] = try encoding.encode(image(t, size: variant.tileSize))
            }
        }
        return tiles
    }

    /// An opaque tile at the top zoom (JPEG in a jpg bundle) and a partly transparent edge tile
    /// there (PNG in a jpg bundle).
    public static var opaqueTile: TileID {
        TileID(
            z: zooms.upperBound, x: TileRange(bounds: box, zoom: zooms.upperBound).maxX,
            y: TileRange(bounds: box, zoom: zooms.upperBound).minY)!
    }
    public static var edgeTile: TileID {
        TileID(
            z: zooms.upperBound, x: TileRange(bounds: box, zoom: zooms.upperBound).minX,
            y: TileRange(bounds: box, zoom: zooms.upperBound).minY)!
    }
}
