/// How source pixels are combined into a tile pixel.
public enum Resampling: String, Sendable, CaseIterable, CustomStringConvertible {
    /// The source pixel under the tile pixel's centre.
    case nearest
    /// Bilinear interpolation between the four nearest source pixels.
    case bilinear
    /// Area-weighted mean of the source pixels the tile pixel covers; for paletted sources, the
    /// mean of point samples of it (`Supersampling`).
    case average

    public var description: String { rawValue }
}
