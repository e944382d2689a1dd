import Foundation

/// The convolution (cubic, cubicspline, lanczos) and mode methods, for both renderers: the
/// separable one gives its taps, the warper a point (kernels) or a footprint (mode) per pixel.
enum KernelSampling {
    /// Straight RGBA packed in one value (the key `mode` counts by).
    @inline(__always) static func pack(_ w: UnsafePointer<UInt8>, _ p: Int) -> UInt32 {
        UInt32(w[p]) | UInt32(w[p + 1]) << 8 | UInt32(w[p + 2]) << 16 | UInt32(w[p + 3]) << 24
    }

    /// The value of most weight in `values`/`weights` written to `o` (transparent pixels count as
    /// one value: where they weigh most, the pixel stays transparent).
    @inline(__always) static func writeMode(_ values: [UInt32], _ weights: [Float], to o: UnsafeMutablePointer<UInt8>) {
        var best = -1
        for k in values.indices where best < 0 || weights[k] > weights[best] { best = k }
        guard best >= 0 else { return }
        let v = values[best]
        guard v >> 24 != 0 else { return }
        o[0] = UInt8(v & 255); o[1] = UInt8(v >> 8 & 255); o[2] = UInt8(v >> 16 & 255); o[3] = UInt8(v >> 24)
    }

    /// Adds `weight` to `value`'s entry.
    @inline(__always) static func count(_ value: UInt32, _ weight: Float, values: inout [UInt32], weights: inout [Float]) {
        let key = value >> 24 == 0 ? 0 : value
        if let k = values.firstIndex(of: key) { weights[k] += weight } else { values.append(key); weights.append(weight) }
    }

    /// A kernel's weights for sampling at `u` (pixel centres at whole numbers), normalised to
    /// sum 1, into `weights`; the first pixel's index.
    @inline(__always) static func weights(at u: Double, method: Resampling, into weights: inout [Float]) -> Int {
        let r = method.kernelRadius!
        let first = Int((u - r).rounded(.up)), last = Int((u + r).rounded(.down))
        weights.removeAll(keepingCapacity: true)
        var sum = 0.0
        for k in first...max(first, last) {
            let w = method.kernel(Double(k) - u)
            weights.append(Float(w))
            sum += w
        }
        if sum != 0 { for i in weights.indices { weights[i] = Float(Double(weights[i]) / sum) } }
        return first
    }
}

extension TileRenderer {
    /// Mode over the separable taps: per tile pixel, the source value covering most of it.
    func resampleMode(window: [UInt8], width ww: Int, origin: (x: Int, y: Int), xt: ResamplingTaps, yt: ResamplingTaps) -> RGBAImage {
        let n = tileSize
        var out = [UInt8](repeating: 0, count: n * n * 4)
        var values = [UInt32](), weights = [Float]()
        window.withUnsafeBufferPointer { win in
            out.withUnsafeMutableBufferPointer { o in
                let w = win.baseAddress!
                for j in 0..<n {
                    let ys = Int(yt.start[j]), ye = ys + Int(yt.count[j])
                    if ys == ye { continue }
                    for i in 0..<n where xt.count[i] > 0 {
                        let xs = Int(xt.start[i]), xe = xs + Int(xt.count[i])
                        values.removeAll(keepingCapacity: true)
                        weights.removeAll(keepingCapacity: true)
                        for b in ys..<ye {
                            let row = Int(yt.index[b]) - origin.y
                            for a in xs..<xe {
                                let p = (row * ww + Int(xt.index[a]) - origin.x) * 4
                                KernelSampling.count(
                                    KernelSampling.pack(w, p), yt.weight[b] * xt.weight[a], values: &values, weights: &weights)
                            }
                        }
                        KernelSampling.writeMode(values, weights, to: o.baseAddress! + (j * n + i) * 4)
                    }
                }
            }
        }
        return RGBAImage(width: n, height: n, pixels: out, roundingAlternates: nil)
    }
}

extension Warper {
    /// A kernel method at window position (`sx`, `sy`) (pixel edges at whole numbers), pixels
    /// clamped to the window (which reaches the kernel's radius past every sample, or the level's edge).
    @inline(__always) func kernelSample(
        _ sx: Double, _ sy: Double, window w: UnsafePointer<UInt8>, size: (w: Int, h: Int),
        wx: inout [Float], wy: inout [Float], to o: UnsafeMutablePointer<UInt8>,
        alternates alt: UnsafeMutablePointer<UInt8>
    ) {
        let fx = KernelSampling.weights(at: sx - 0.5, method: resampling, into: &wx)
        let fy = KernelSampling.weights(at: sy - 0.5, method: resampling, into: &wy)
        var sum = SIMD4<Float>.zero
        for (b, wyb) in wy.enumerated() where wyb != 0 {
            let y = min(max(fy + b, 0), size.h - 1)
            for (a, wxa) in wx.enumerated() where wxa != 0 {
                let x = min(max(fx + a, 0), size.w - 1)
                let p = (y * size.w + x) * 4
                let al = wxa * wyb * Float(w[p + 3])
                sum += SIMD4<Float>(Float(w[p]), Float(w[p + 1]), Float(w[p + 2]), 1) * al
            }
        }
        RoundingPair.write(sum, total: 1, to: o, alternates: alt)
    }

    /// Mode over the window pixels `kx0...kx1` × `ky0...ky1` weighted by `wxs`/`wys`.
    @inline(__always) func modeSample(
        window w: UnsafePointer<UInt8>, width: Int, kx: ClosedRange<Int>, ky: ClosedRange<Int>,
        wxs: UnsafePointer<Float>, wys: UnsafePointer<Float>, values: inout [UInt32], weights: inout [Float],
        to o: UnsafeMutablePointer<UInt8>
    ) {
        values.removeAll(keepingCapacity: true)
        weights.removeAll(keepingCapacity: true)
        for y in ky {
            for x in kx {
                KernelSampling.count(
                    KernelSampling.pack(w, (y * width + x) * 4), wxs[x - kx.lowerBound] * wys[y - ky.lowerBound],
                    values: &values, weights: &weights)
            }
        }
        KernelSampling.writeMode(values, weights, to: o)
    }
}
