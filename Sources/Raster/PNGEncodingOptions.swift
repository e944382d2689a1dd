/// How `PNGEncoder` trades speed for size. Every reduction is lossless: decoding the output
/// gives back exactly the same RGBA bytes.
public struct PNGEncodingOptions: Sendable {
    /// How hard the encoder searches for a smaller output.
    public enum Effort: Sendable {
        /// One filter/strategy setting.
        case fast
        /// Two filter/strategy combinations; the smallest output is kept.
        case best
    }

    /// zlib compression level, 0...9 (default 9).
    public var compressionLevel: Int
    /// Write a palette PNG (bit depth 1, 2, 4 or 8) when the image has at most 256 distinct
    /// RGBA colours (default true).
    public var allowPalette: Bool
    /// Drop the alpha channel when opaque and write gray when R == G == B (default true).
    public var reduceChannels: Bool
    /// Speed versus size (default `.best`).
    public var effort: Effort
    /// Write an Adam7-interlaced PNG (internal: tests need interlaced input).
    var interlaced = false

    /// Options; the defaults give the smallest lossless output.
    public init(
        compressionLevel: Int = 9, allowPalette: Bool = true, reduceChannels: Bool = true,
        effort: Effort = .best
    ) {
        self.compressionLevel = compressionLevel
        self.allowPalette = allowPalette
        self.reduceChannels = reduceChannels
        self.effort = effort
    }

    /// Level 9, palette and channel reduction allowed, `.best` effort.
    public static let `default` = PNGEncodingOptions()

    /// Plain RGBA8 output with no colour reduction.
    public static let rgba = PNGEncodingOptions(allowPalette: false, reduceChannels: false, effort: .fast)
}
