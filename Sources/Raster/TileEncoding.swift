/// How a build encodes its tiles: the bundle's format and that format's settings.
public struct TileEncoding: Sendable, Codable {
    public var format: TileFormat = .png
    /// PNG tiles (and the transparent tiles of a `jpg` bundle).
    public var png: PNGEncodingOptions
    /// WebP lossless (the pixels exactly) instead of lossy.
    public var lossless = false
    /// Lossy WebP and JPEG quality, 1–100.
    public var quality = 90
    /// libwebp's effort: the lossless preset 0–9, or the lossy method 0–6.
    public var webpEffort = 4

    public init(png: PNGEncodingOptions) {
        self.png = png
    }

    /// Encodes one tile in the bundle's format (a `jpg` bundle's tiles with any transparency as PNG).
    public func encode(_ image: RGBAImage) throws(TileCodecError) -> [UInt8] {
        switch format {
        case .png:
            do { return try PNGEncoder.encode(image, options: png) } catch { throw .png(error) }
        case .webp:
            return try WebPCodec.encode(image, lossless: lossless, quality: quality, effort: webpEffort)
        case .jpg:
            if image.isOpaque { return try JPEGCodec.encode(image, quality: quality) }
            do { return try PNGEncoder.encode(image, options: png) } catch { throw .png(error) }
        }
    }

    /// Encodes one grey tile: the bytes `encode(image.rgba)` gives; PNG straight from the grey
    /// values, other formats through the RGBA form.
    public func encode(_ image: GrayImage) throws(TileCodecError) -> [UInt8] {
        guard format == .png || (format == .jpg && !image.isOpaque) else { return try encode(image.rgba) }
        do { return try PNGEncoder.encode(image, options: png) } catch { throw .png(error) }
    }
}

/// Decodes tiles of any format TrailMap writes.
public enum TileDecoder {
    /// Decodes `data` by its magic numbers; with `declared`, a tile in a format its bundle may not
    /// hold (e.g. a PNG in a WebP bundle) is an error. An image of more than `maxPixels` pixels is
    /// refused from its header, before anything is allocated (a few hundred bytes of PNG can
    /// claim 16384 x 16384 pixels: a decompression bomb).
    public static func decode(_ data: [UInt8], declared: TileFormat? = nil, maxPixels: Int = 1 << 22) throws(TileCodecError) -> RGBAImage {
        guard let found = TileFormat.sniff(data) else { throw .unknownFormat }
        if let declared, !declared.tileFormats.contains(found) { throw .wrongFormat(declared: declared, found: found) }
        switch found {
        case .png:
            do { return try PNGDecoder.decode(data, maxPixels: maxPixels) } catch { throw .png(error) }
        case .webp: return try WebPCodec.decode(data, maxPixels: maxPixels)
        case .jpg: return try JPEGCodec.decode(data, maxPixels: maxPixels)
        }
    }
}
