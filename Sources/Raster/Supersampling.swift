/// `average` for palette sources (scanned and drawn maps: line art in a few colours): a tile
/// pixel is the mean of point samples, 4 along each axis of its footprint (more where the
/// footprint spans over 2 source pixels: at least 2 a pixel), as gdal2tiles' average of 4×4
/// oversampled reads is. Coverage then comes in steps of 1/16, so the blends of two map colours
/// along a line repeat from pixel to pixel, where the exact overlaps of the area mean make a new
/// colour at nearly every pixel: such tiles compress to fewer bytes (docs/real-sources.md),
/// and look the same. Continuous-tone sources keep the exact area mean, which compresses better
/// for them (point samples add sampling noise to smooth gradients).
enum Supersampling {
    /// Samples along an axis of a footprint `width` source pixels wide.
    static func count(width: Double) -> Int { max(4, 2 * Int(width.rounded(.up))) }

    /// The weight of source pixels `first...last` (pixel k spans [k, k+1)) along one axis of the
    /// footprint [lo, hi]: the footprint's width over the samples that fall in each, as the
    /// exact overlaps sum to the width (samples outside the range fall off the source).
    static func weights(lo: Double, hi: Double, first: Int, last: Int, into w: UnsafeMutablePointer<Float>) {
        let n = count(width: hi - lo)
        let step = (hi - lo) / Double(n)
        for k in 0...(last - first) { w[k] = 0 }
        for i in 0..<n {
            let k = Int((lo + (Double(i) + 0.5) * step).rounded(.down))
            if k >= first && k <= last { w[k - first] += Float(step) }
        }
    }

    /// The same into an array of `last - first + 1` weights.
    static func weights(lo: Double, hi: Double, first: Int, last: Int, into w: inout [Float]) {
        w.withUnsafeMutableBufferPointer { weights(lo: lo, hi: hi, first: first, last: last, into: $0.baseAddress!) }
    }
}
