/// How `PNGEncoder` trades speed for size. Every reduction is lossless: decoding the output
/// gives back exactly the same RGBA bytes, unless `rounding` is `.compact` and the image carries
/// rounding alternates (then each byte is the image's or its alternate, within one level).
public struct PNGEncodingOptions: Sendable, Codable {
    /// Which deflate implementation compresses the image data.
    public enum Deflater: Sendable, Codable, CustomStringConvertible {
        /// libpng's own zlib path, levels 0...9.
        case zlib
        /// Rows filtered by TrailMap, IDAT compressed with libdeflate, levels 0...12
        /// (10...12 are near-optimal and much slower).
        case libdeflate

        /// The highest compression level.
        public var maxLevel: Int { self == .zlib ? 9 : 12 }

        public var description: String { self == .zlib ? "zlib" : "libdeflate" }
    }

    /// How hard the encoder searches for a smaller output.
    public enum Effort: Sendable, Codable {
        /// One filter setting (libdeflate: per-row least entropy; none for palettes).
        case fast
        /// zlib: two filter/strategy combinations, the smaller kept. libdeflate: every filter and
        /// two per-row heuristics ranked on a sample of rows, and palette versus truecolour
        /// where both are lossless; the winner is compressed once at `compressionLevel`.
        case best
    }

    /// Which deflate implementation to use (default libdeflate).
    public var deflater: Deflater
    /// Compression level: zlib 0...9, libdeflate 0...12 (default 9).
    public var compressionLevel: Int
    /// Write a palette PNG (bit depth 1, 2, 4 or 8) when the image has at most 256 distinct
    /// RGBA colours (default true).
    public var allowPalette: Bool
    /// Drop the alpha channel when opaque and write gray when R == G == B (default true).
    public var reduceChannels: Bool
    /// Speed versus size (default `.best`).
    public var effort: Effort
    /// libdeflate with `.fast` effort only: levels chosen per image (nil: `compressionLevel` for all).
    public var adaptiveLevels: AdaptiveLevels?
    /// How values between two levels are stored where the image knows them
    /// (`RGBAImage.roundingAlternates`; libdeflate, non-interlaced, gray and truecolour layouts
    /// only). Default `.nearest`: the pixels exactly.
    public var rounding = TileRounding.nearest
    /// libdeflate level of the `.best` filter search (1...12).
    var searchLevel = 1
    /// Write an Adam7-interlaced PNG (internal: tests need interlaced input). Interlaced output
    /// always goes through zlib, at `min(compressionLevel, 9)`.
    var interlaced = false

    /// Options; the defaults give small lossless output.
    public init(
        deflater: Deflater = .libdeflate, compressionLevel: Int = 9, allowPalette: Bool = true,
        reduceChannels: Bool = true, effort: Effort = .best
    ) {
        self.deflater = deflater
        self.compressionLevel = compressionLevel
        self.allowPalette = allowPalette
        self.reduceChannels = reduceChannels
        self.effort = effort
    }

    /// Per-image libdeflate levels: effort goes where it buys the most bytes per second.
    public struct AdaptiveLevels: Sendable, Equatable, Codable {
        /// Level of palette images (written unfiltered; there lazy matching, level 7, is as small as 8
        /// and faster; docs/notes/png-compression.md).
        public var palette: Int
        /// Level of truecolour images whose filtered rows carry more than `denseBitsPerPixel` bits of
        /// entropy per pixel; the others get `compressionLevel`. Near-optimal parsing (10) saves
        /// the most per second spent on such dense images.
        public var dense: Int
        public var denseBitsPerPixel: Double

        public init(palette: Int, dense: Int, denseBitsPerPixel: Double) {
            self.palette = palette
            self.dense = dense
            self.denseBitsPerPixel = denseBitsPerPixel
        }
    }

    /// libdeflate level 9, palette and channel reduction allowed, `.best` effort.
    public static let `default` = PNGEncodingOptions()

    /// Plain RGBA8 output with no colour reduction.
    public static let rgba = PNGEncodingOptions(allowPalette: false, reduceChannels: false, effort: .fast)
}
