import Foundation

extension Warper {
    /// Samples every tile pixel from the window (effective pixels; `origin` is the window's
    /// top-left in the level, `level` the level's size): each pixel's source position is the
    /// bilinear interpolation of its grid cell's corners, then one tight loop per method.
    func sample(
        grid g: Grid, halfX: [Double], halfY: [Double], window: [UInt8], origin: (x: Int, y: Int),
        size: (w: Int, h: Int), level: (w: Int, h: Int)
    ) -> RGBAImage {
        let n = tileSize
        let (px, py, cellOf) = positions(grid: g, origin: origin)
        var out = [UInt8](repeating: 0, count: n * n * 4)
        // Nearest-neighbour and mode samples are whole: no alternates.
        var alternates = [UInt8](repeating: 0, count: resampling == .nearest || resampling == .mode ? 0 : n * n * 4)
        window.withUnsafeBufferPointer { win in
            out.withUnsafeMutableBufferPointer { o in
                alternates.withUnsafeMutableBufferPointer { a in
                    px.withUnsafeBufferPointer { px in
                        py.withUnsafeBufferPointer { py in
                            let w = win.baseAddress!, out = o.baseAddress!, alt = a.baseAddress
                            // Level bounds relative to the window.
                            let lx0 = -Double(origin.x), ly0 = -Double(origin.y)
                            let lx1 = lx0 + Double(level.w), ly1 = ly0 + Double(level.h)
                            switch resampling {
                            case .nearest:
                                for q in 0..<(n * n) {
                                    let sx = px[q], sy = py[q]
                                    guard sx >= lx0, sy >= ly0, sx < lx1, sy < ly1 else { continue }
                                    let p = (Int((sy - ly0).rounded(.down) + ly0) * size.w + Int((sx - lx0).rounded(.down) + lx0)) * 4
                                    out[q * 4] = w[p]; out[q * 4 + 1] = w[p + 1]; out[q * 4 + 2] = w[p + 2]; out[q * 4 + 3] = w[p + 3]
                                }
                            case .bilinear:
                                sampleBilinear(
                                    px: px, py: py, window: w, origin: origin, size: size, level: level, out: out, alternates: alt!)
                            case .cubic, .cubicspline, .lanczos:
                                var wx = [Float](), wy = [Float]()
                                for q in 0..<(n * n) {
                                    let sx = px[q], sy = py[q]
                                    guard sx >= lx0, sy >= ly0, sx < lx1, sy < ly1 else { continue }
                                    kernelSample(sx, sy, window: w, size: size, wx: &wx, wy: &wy, to: out + q * 4, alternates: alt! + q * 4)
                                }
                            case .mode:
                                sampleMode(px: px, py: py, cellOf: cellOf, halfX: halfX, halfY: halfY, window: w, size: size, out: out)
                            case .average:
                                sampleAverage(
                                    px: px, py: py, cellOf: cellOf, halfX: halfX, halfY: halfY, window: w, size: size, out: out,
                                    alternates: alt!)
                            }
                        }
                    }
                }
            }
        }
        return RGBAImage(width: n, height: n, pixels: out, roundingAlternates: alternates.isEmpty ? nil : alternates)
    }

    /// Each tile pixel's source position relative to the window (`origin`, its top-left in the
    /// level): the bilinear interpolation of its grid cell's corners, NaN where undefined; and
    /// the index of the grid cell it lies in.
    private func positions(grid g: Grid, origin: (x: Int, y: Int)) -> (px: [Double], py: [Double], cellOf: [Int32]) {
        let n = tileSize
        let cells = g.m - 1
        let s = Double(g.step)
        // Source positions of pixel centres, relative to the window; NaN where undefined.
        var px = [Double](repeating: .nan, count: n * n), py = px
        var cellOf = [Int32](repeating: 0, count: n * n)
        g.xs.withUnsafeBufferPointer { gx in
            g.ys.withUnsafeBufferPointer { gy in
                px.withUnsafeMutableBufferPointer { px in
                    py.withUnsafeMutableBufferPointer { py in
                        cellOf.withUnsafeMutableBufferPointer { cellOf in
                            let ox = Double(origin.x), oy = Double(origin.y)
                            for j in 0..<n {
                                let v = (Double(j) + 0.5) / s
                                let b = min(Int(v), cells - 1)
                                let fv = v - Double(b)
                                for a in 0..<cells {
                                    let t0 = b * g.m + a, t1 = t0 + 1, b0 = t0 + g.m, b1 = b0 + 1
                                    let lx = gx[t0] + (gx[b0] - gx[t0]) * fv, rx = gx[t1] + (gx[b1] - gx[t1]) * fv
                                    let ly = gy[t0] + (gy[b0] - gy[t0]) * fv, ry = gy[t1] + (gy[b1] - gy[t1]) * fv
                                    let i0 = a * g.step, i1 = a == cells - 1 ? n : i0 + g.step
                                    for i in i0..<i1 {
                                        let fu = (Double(i) + 0.5) / s - Double(a)
                                        let q = j * n + i
                                        px[q] = lx + (rx - lx) * fu - ox
                                        py[q] = ly + (ry - ly) * fu - oy
                                        cellOf[q] = Int32(b * cells + a)
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        return (px, py, cellOf)
    }

    /// Bilinear samples (premultiplied by alpha, with their rounding alternates), the taps clamped
    /// to the level; pixels outside the level are left transparent.
    private func sampleBilinear(
        px: UnsafeBufferPointer<Double>, py: UnsafeBufferPointer<Double>, window w: UnsafePointer<UInt8>, origin: (x: Int, y: Int),
        size: (w: Int, h: Int), level: (w: Int, h: Int), out: UnsafeMutablePointer<UInt8>, alternates alt: UnsafeMutablePointer<UInt8>
    ) {
        let n = tileSize
        let lx0 = -Double(origin.x), ly0 = -Double(origin.y)
        let lx1 = lx0 + Double(level.w), ly1 = ly0 + Double(level.h)
        let maxX = level.w - 1 - origin.x, maxY = level.h - 1 - origin.y
        let minX = -origin.x, minY = -origin.y
        for q in 0..<(n * n) {
            let sx = px[q], sy = py[q]
            guard sx >= lx0, sy >= ly0, sx < lx1, sy < ly1 else { continue }
            let ux = sx - 0.5, uy = sy - 0.5
            let kx = Int(ux.rounded(.down)), ky = Int(uy.rounded(.down))
            let fx = Float(ux - Double(kx)), fy = Float(uy - Double(ky))
            let xa = min(max(kx, minX), maxX), xb = min(max(kx + 1, minX), maxX)
            let ya = min(max(ky, minY), maxY), yb = min(max(ky + 1, minY), maxY)
            var sum = SIMD4<Float>.zero
            @inline(__always) func tap(_ x: Int, _ y: Int, _ weight: Float) {
                let p = (y * size.w + x) * 4
                let al = weight * Float(w[p + 3])
                sum += SIMD4<Float>(Float(w[p]), Float(w[p + 1]), Float(w[p + 2]), 1) * al
            }
            tap(xa, ya, (1 - fx) * (1 - fy))
            tap(xb, ya, fx * (1 - fy))
            tap(xa, yb, (1 - fx) * fy)
            tap(xb, yb, fx * fy)
            RoundingPair.write(sum, total: 1, to: out + q * 4, alternates: alt + q * 4)
        }
    }

    /// The mode (the most common colour, weighed by area) of the window's pixels under each tile
    /// pixel's footprint (its grid cell's half extents `halfX`, `halfY` about its position).
    private func sampleMode(
        px: UnsafeBufferPointer<Double>, py: UnsafeBufferPointer<Double>, cellOf: [Int32], halfX: [Double], halfY: [Double],
        window w: UnsafePointer<UInt8>, size: (w: Int, h: Int), out: UnsafeMutablePointer<UInt8>
    ) {
        let n = tileSize
        var values = [UInt32](), counts = [Float]()
        cellOf.withUnsafeBufferPointer { cellOf in
            halfX.withUnsafeBufferPointer { hxs in
                halfY.withUnsafeBufferPointer { hys in
                    withUnsafeTemporaryAllocation(of: Float.self, capacity: 512) { weights in
                        let wxs = weights.baseAddress!, wys = wxs + 256
                        for q in 0..<(n * n) {
                            let sx = px[q], sy = py[q]
                            let cell = Int(cellOf[q])
                            let hx = hxs[cell], hy = hys[cell]
                            guard sx.isFinite, sy.isFinite, hx.isFinite else { continue }
                            let xlo = sx - hx, xhi = sx + hx, ylo = sy - hy, yhi = sy + hy
                            let kx0 = max(Int(xlo.rounded(.down)), 0),
                                kx1 = min(Int(xhi.rounded(.up)) - 1, size.w - 1)
                            let ky0 = max(Int(ylo.rounded(.down)), 0),
                                ky1 = min(Int(yhi.rounded(.up)) - 1, size.h - 1)
                            guard kx0 <= kx1, ky0 <= ky1, kx1 - kx0 < 256, ky1 - ky0 < 256 else { continue }
                            for kx in kx0...kx1 {
                                wxs[kx - kx0] = Float(min(xhi, Double(kx + 1)) - max(xlo, Double(kx)))
                            }
                            for ky in ky0...ky1 {
                                wys[ky - ky0] = Float(min(yhi, Double(ky + 1)) - max(ylo, Double(ky)))
                            }
                            modeSample(
                                window: w, width: size.w, kx: kx0...kx1, ky: ky0...ky1, wxs: wxs, wys: wys,
                                values: &values, weights: &counts, to: out + q * 4)
                        }
                    }
                }
            }
        }
    }

    /// The area-weighted mean (premultiplied by alpha, with its rounding alternates) of the
    /// window's pixels under each tile pixel's footprint (as `sampleMode`'s), its weights
    /// supersampled when the warper says so.
    private func sampleAverage(
        px: UnsafeBufferPointer<Double>, py: UnsafeBufferPointer<Double>, cellOf: [Int32], halfX: [Double], halfY: [Double],
        window w: UnsafePointer<UInt8>, size: (w: Int, h: Int), out: UnsafeMutablePointer<UInt8>,
        alternates alt: UnsafeMutablePointer<UInt8>
    ) {
        let n = tileSize
        cellOf.withUnsafeBufferPointer { cellOf in
            halfX.withUnsafeBufferPointer { hxs in
                halfY.withUnsafeBufferPointer { hys in
                    withUnsafeTemporaryAllocation(of: Float.self, capacity: 512) { weights in
                        let wxs = weights.baseAddress!, wys = wxs + 256
                        for q in 0..<(n * n) {
                            let sx = px[q], sy = py[q]
                            let cell = Int(cellOf[q])
                            let hx = hxs[cell], hy = hys[cell]
                            guard sx.isFinite, sy.isFinite, hx.isFinite else { continue }
                            let xlo = sx - hx, xhi = sx + hx, ylo = sy - hy, yhi = sy + hy
                            let kx0 = max(Int(xlo.rounded(.down)), 0),
                                kx1 = min(Int(xhi.rounded(.up)) - 1, size.w - 1)
                            let ky0 = max(Int(ylo.rounded(.down)), 0),
                                ky1 = min(Int(yhi.rounded(.up)) - 1, size.h - 1)
                            guard kx0 <= kx1, ky0 <= ky1, kx1 - kx0 < 256, ky1 - ky0 < 256 else { continue }
                            if supersampled {
                                Supersampling.weights(lo: xlo, hi: xhi, first: kx0, last: kx1, into: wxs)
                                Supersampling.weights(lo: ylo, hi: yhi, first: ky0, last: ky1, into: wys)
                            } else {
                                for kx in kx0...kx1 {
                                    wxs[kx - kx0] = Float(min(xhi, Double(kx + 1)) - max(xlo, Double(kx)))
                                }
                                for ky in ky0...ky1 {
                                    wys[ky - ky0] = Float(min(yhi, Double(ky + 1)) - max(ylo, Double(ky)))
                                }
                            }
                            var sum = SIMD4<Float>.zero
                            for ky in ky0...ky1 {
                                let wy = wys[ky - ky0]
                                var row = SIMD4<Float>.zero
                                var p = (ky * size.w + kx0) * 4
                                for k in 0...(kx1 - kx0) {
                                    let al = wxs[k] * Float(w[p + 3])
                                    row += SIMD4<Float>(Float(w[p]), Float(w[p + 1]), Float(w[p + 2]), 1) * al
                                    p += 4
                                }
                                sum += row * wy
                            }
                            RoundingPair.write(
                                sum, total: Float(max((xhi - xlo) * (yhi - ylo), 1e-12)), to: out + q * 4,
                                alternates: alt + q * 4)
                        }
                    }
                }
            }
        }
    }
}
