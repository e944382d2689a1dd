/// How a PNG tile stores a resampled value that falls between two 8-bit levels.
///
/// A resampled pixel (a weighted mean of source pixels, or of four child tiles' pixels) is rarely
/// a whole number. Rounding it to the nearest level is within half a level; rounding it up or
/// down, whichever the PNG row filter predicts better, is within one level and leaves the
/// filtered rows with smaller residues, which deflate codes in fewer bits (2-20% fewer bytes:
/// least on noisy imagery, most on smooth; docs/notes/png-compression.md). Whole values (copies, nearest-neighbour samples),
/// alpha, palette tiles and lossy formats are the same either way.
public enum TileRounding: String, CaseIterable, Sendable, Codable, CustomStringConvertible {
    /// Each value to the nearest level (at most half a level off).
    case nearest
    /// Each value up or down, whichever compresses better (less than one level off).
    case compact

    public var description: String { rawValue }
}

/// Rounding a resampled value and naming its other neighbour (see `RGBAImage.roundingAlternates`).
enum RoundingPair {
    /// Values this close to a whole number count as whole: float sums of equal pixels are not
    /// exact, and a copy must stay a copy.
    static let wholeTolerance: Float = 1.0 / 1024

    /// `value` clamped to 0...255 and rounded to the nearest level (halves up), and the other
    /// level next to it (the rounded level itself when the value is whole).
    @inline(__always) static func split(_ value: Float) -> (rounded: UInt8, other: UInt8) {
        let v = min(max(value, 0), 255)
        let n = UInt8(v + 0.5)
        let d = v - Float(n)
        if abs(d) < wholeTolerance { return (n, n) }
        return (n, d > 0 ? n + 1 : n - 1)
    }

    /// Writes an alpha-weighted sum (colours × alpha, alpha in the last lane; `total` the weight
    /// of full coverage) as straight RGBA to `o`, and each colour's other rounding to `alt`
    /// (alpha's is alpha itself). Nothing where the sum holds no weight.
    @inline(__always) static func write(
        _ sum: SIMD4<Float>, total: Float, to o: UnsafeMutablePointer<UInt8>,
        alternates alt: UnsafeMutablePointer<UInt8>
    ) {
        let sa = sum[3]
        guard sa > 0 else { return }
        (o[0], alt[0]) = split(sum[0] / sa)
        (o[1], alt[1]) = split(sum[1] / sa)
        (o[2], alt[2]) = split(sum[2] / sa)
        o[3] = UInt8(min(sa / total + 0.5, 255))
        alt[3] = o[3]
    }

    /// The other level next to the exact `sum / count` (count > 0) when `rounded` is its nearest
    /// level: `rounded` itself when the division is exact.
    @inline(__always) static func other(sum: Int, count: Int, rounded: UInt8) -> UInt8 {
        let r = sum - Int(rounded) * count
        return r == 0 ? rounded : r > 0 ? rounded + 1 : rounded - 1
    }
}
