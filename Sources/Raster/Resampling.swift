import Foundation

/// How source pixels are combined into a tile pixel (gdal2tiles' `-r` methods).
public enum Resampling: String, Sendable, CaseIterable, CustomStringConvertible {
    /// The source pixel under the tile pixel's centre.
    case nearest
    /// Bilinear interpolation between the four nearest source pixels.
    case bilinear
    /// Cubic convolution (Keys, a = -0.5) over 4×4 source pixels: sharper than bilinear, with a
    /// slight halo at hard edges.
    case cubic
    /// Cubic B-spline over 4×4 source pixels: smooth, a little blurred, no halo.
    case cubicspline
    /// Lanczos windowed sinc over 6×6 source pixels: the sharpest, with ringing at hard edges.
    case lanczos
    /// Area-weighted mean of the source pixels the tile pixel covers; for paletted sources, the
    /// mean of point samples of it (`Supersampling`).
    case average
    /// The most frequent value among the source pixels the tile pixel covers (for classified
    /// maps: no colour that is not in the source).
    case mode

    public var description: String { rawValue }

    /// The value a user may give for it: its name, or gdal2tiles' `near` for nearest.
    public init?(name: String) {
        let lower = name.lowercased()
        if lower == "near" { self = .nearest } else if let r = Resampling(rawValue: lower) { self = r } else { return nil }
    }

    /// The reach of a convolution kernel in source pixels (nil: not a kernel method).
    var kernelRadius: Double? {
        switch self {
        case .cubic, .cubicspline: 2
        case .lanczos: 3
        default: nil
        }
    }

    /// The kernel's weight at distance `x` (source pixels) from the sampled point.
    @inline(__always) func kernel(_ x: Double) -> Double {
        let a = abs(x)
        switch self {
        case .cubic:
            if a < 1 { return (1.5 * a - 2.5) * a * a + 1 }
            if a < 2 { return ((-0.5 * a + 2.5) * a - 4) * a + 2 }
            return 0
        case .cubicspline:
            if a < 1 { return (4 - 6 * a * a + 3 * a * a * a) / 6 }
            if a < 2 { return (2 - a) * (2 - a) * (2 - a) / 6 }
            return 0
        case .lanczos:
            if a < 1e-9 { return 1 }
            if a >= 3 { return 0 }
            let p = Double.pi * a
            return 3 * sin(p) * sin(p / 3) / (p * p)
        default:
            return 0
        }
    }
}
