/// Separable resampling weights along one axis: for each output pixel, the source pixels it
/// reads (indices into the level) and their weights. An output pixel with no taps is outside
/// the source.
struct ResamplingTaps {
    var start: [Int32]
    var count: [Int32]
    var index: [Int32]
    var weight: [Float]
    /// Per output pixel, the weight that full coverage would have (coverage = sum of weights / total).
    var total: [Float]

    init(capacity: Int) {
        start = []
        count = []
        index = []
        weight = []
        total = []
        start.reserveCapacity(capacity)
        count.reserveCapacity(capacity)
        total.reserveCapacity(capacity)
        index.reserveCapacity(capacity * 3)
        weight.reserveCapacity(capacity * 3)
    }

    /// Smallest and largest source index used, or nil when no output pixel touches the source.
    var span: (Int, Int)? {
        guard let lo = index.min(), let hi = index.max() else { return nil }
        return (Int(lo), Int(hi))
    }

    /// Builds taps from output pixel edges `edges` (n+1 values) and centres `centers` (n values),
    /// in source pixel units (pixel k spans [k, k+1)), for a source axis of `size` pixels.
    /// `supersampled`: `average` counts point samples (`Supersampling`) instead of overlaps.
    static func make(edges: [Double], centers: [Double], size: Int, method: Resampling, supersampled: Bool = false) -> ResamplingTaps {
        let n = centers.count
        var taps = ResamplingTaps(capacity: n)
        var weights = [Float]() // supersampled: one buffer for every output pixel
        for i in 0..<n {
            taps.start.append(Int32(taps.index.count))
            let c = centers[i]
            switch method {
            case .nearest:
                if c >= 0, c < Double(size) {
                    taps.index.append(Int32(Int(c)))
                    taps.weight.append(1)
                }
                taps.total.append(1)
            case .bilinear:
                if c >= 0, c < Double(size) {
                    let u = c - 0.5
                    let k0 = Int(u.rounded(.down))
                    let f = Float(u - Double(k0))
                    let a = min(max(k0, 0), size - 1)
                    let b = min(max(k0 + 1, 0), size - 1)
                    if a == b {
                        taps.index.append(Int32(a))
                        taps.weight.append(1)
                    } else {
                        taps.index.append(Int32(a))
                        taps.weight.append(1 - f)
                        taps.index.append(Int32(b))
                        taps.weight.append(f)
                    }
                }
                taps.total.append(1)
            case .cubic, .cubicspline, .lanczos:
                if c >= 0, c < Double(size) {
                    // Widened where a tile pixel spans more than one source pixel (as GDAL does).
                    let scale = max(abs(edges[i + 1] - edges[i]), 1)
                    let radius = method.kernelRadius! * scale
                    let u = c - 0.5
                    let first = Int((u - radius).rounded(.up)), last = Int((u + radius).rounded(.down))
                    let from = taps.weight.count
                    var sum = 0.0
                    for k in first...max(first, last) {
                        let w = method.kernel((Double(k) - u) / scale)
                        guard w != 0 else { continue }
                        taps.index.append(Int32(min(max(k, 0), size - 1)))
                        taps.weight.append(Float(w))
                        sum += w
                    }
                    if sum != 0 { for a in from..<taps.weight.count { taps.weight[a] = Float(Double(taps.weight[a]) / sum) } }
                }
                taps.total.append(1)
            case .average, .mode:
                let lo = min(edges[i], edges[i + 1])
                let hi = max(edges[i], edges[i + 1])
                let first = max(Int(lo.rounded(.down)), 0)
                let last = min(Int(hi.rounded(.up)) - 1, size - 1)
                if first <= last, supersampled, method == .average {
                    if weights.count < last - first + 1 { weights = [Float](repeating: 0, count: last - first + 1) }
                    Supersampling.weights(lo: lo, hi: hi, first: first, last: last, into: &weights)
                    for k in first...last where weights[k - first] > 0 {
                        taps.index.append(Int32(k))
                        taps.weight.append(weights[k - first])
                    }
                } else if first <= last {
                    for k in first...last {
                        let w = min(hi, Double(k + 1)) - max(lo, Double(k))
                        if w > 1e-9 {
                            taps.index.append(Int32(k))
                            taps.weight.append(Float(w))
                        }
                    }
                }
                taps.total.append(Float(max(hi - lo, 1e-12)))
            }
            taps.count.append(Int32(taps.index.count) - taps.start[i])
        }
        return taps
    }
}
