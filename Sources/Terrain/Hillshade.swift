import Foundation

/// Shaded relief by Horn's method, as `gdaldem hillshade` computes it (its single,
/// multidirectional and combined variants), on a tile's `ElevationGrid`.
///
/// The grid's pixels are square in Web Mercator; their size on the ground shrinks with the
/// cosine of the latitude, so each row is shaded with its own ground resolution (what gdaldem's
/// `-s` scale does for a whole raster).
public enum Hillshade {
    /// The shade of each tile pixel, rows north first: 1–255 (gdaldem's values), 0 for a void.
    /// A void neighbour is taken as the pixel itself (gdaldem's `-compute_edges` behaviour).
    ///
    /// - Parameter groundPixelSize: the size in metres on the ground of a pixel of tile row `y`.
    public static func shade(
        _ grid: ElevationGrid, options: HillshadeOptions,
        groundPixelSize: (Int) -> Double
    ) -> [UInt8] {
        let light = Light(options)
        switch options.mode {
        case .single:
            return shade(grid, groundPixelSize: groundPixelSize, kernel: { light.single($0, $1) }, singleLight: light)
        case .combined: return shade(grid, groundPixelSize: groundPixelSize, kernel: { light.combined($0, $1) }, singleLight: nil)
        case .multidirectional:
            return shade(grid, groundPixelSize: groundPixelSize, kernel: { light.multidirectional($0, $1) }, singleLight: nil)
        }
    }

    /// Four pixels of a row side by side.
    typealias Lanes = SIMD4<Double>

    /// Horn's gradient of every non-void pixel, `kernel` turning it into a shade (1–255, unrounded).
    /// `singleLight`, when given (`kernel` being its `single`), shades four pixels at once: runs of four pixels whose
    /// 3×3 windows hold no void are shaded by it, the same operations in the same order (the
    /// same shades), the others one by one.
    @inline(__always)
    private static func shade(
        _ grid: ElevationGrid, groundPixelSize: (Int) -> Double,
        kernel: (_ gx: Double, _ gy: Double) -> Double,
        singleLight: Light?
    ) -> [UInt8] {
        let n = grid.size, s = grid.stride, b = grid.border
        precondition(b >= 1, "a hillshade needs a border of at least one pixel")
        return [UInt8](unsafeUninitializedCapacity: n * n) { out, initialized in
            grid.values.withUnsafeBufferPointer { v in
                let base = v.baseAddress!
                for y in 0..<n {
                    let res = groundPixelSize(y)
                    let invEW = 1 / res, invNS = -1 / res // north-up: gdaldem's nsres is negative
                    let centreRow = base + (y + b) * s + b
                    let above = centreRow - s, below = centreRow + s
                    let line = out.baseAddress! + y * n
                    var x = 0
                    if let singleLight {
                        while x + 4 <= n {
                            if shadeFour(
                                above: above + x, centre: centreRow + x, below: below + x, into: line + x,
                                invEW: invEW, invNS: invNS, light: singleLight)
                            {
                                x += 4
                                continue
                            }
                            for k in x..<(x + 4) {
                                line[k] = shadeOne(
                                    above: above + k, centre: centreRow + k, below: below + k, invEW: invEW, invNS: invNS, kernel: kernel)
                            }
                            x += 4
                        }
                    }
                    while x < n {
                        line[x] = shadeOne(
                            above: above + x, centre: centreRow + x, below: below + x, invEW: invEW, invNS: invNS, kernel: kernel)
                        x += 1
                    }
                }
            }
            initialized = n * n
        }
    }

    /// The shade of the pixel at `centre` (its row's neighbours at `above` and `below`): 0 for a
    /// void, else `kernel` of Horn's gradient, a void neighbour taken as the pixel itself,
    /// clamped to 1–255 and rounded.
    @inline(__always)
    private static func shadeOne(
        above: UnsafePointer<Float>, centre centreRow: UnsafePointer<Float>, below: UnsafePointer<Float>,
        invEW: Double, invNS: Double, kernel: (_ gx: Double, _ gy: Double) -> Double
    ) -> UInt8 {
        let x = 0
        let centre = centreRow[x]
        if centre.isNaN { return 0 }
        var w0 = above[x - 1], w1 = above[x], w2 = above[x + 1]
        var w3 = centreRow[x - 1], w5 = centreRow[x + 1]
        var w6 = below[x - 1], w7 = below[x], w8 = below[x + 1]
        // One test for the common case: a sum is NaN when any term is.
        if (w0 + w1 + w2 + w3 + w5 + w6 + w7 + w8).isNaN {
            if w0.isNaN { w0 = centre }
            if w1.isNaN { w1 = centre }
            if w2.isNaN { w2 = centre }
            if w3.isNaN { w3 = centre }
            if w5.isNaN { w5 = centre }
            if w6.isNaN { w6 = centre }
            if w7.isNaN { w7 = centre }
            if w8.isNaN { w8 = centre }
        }
        let (d0, d1, d2, d3) = (Double(w0), Double(w1), Double(w2), Double(w3))
        let (d5, d6, d7, d8) = (Double(w5), Double(w6), Double(w7), Double(w8))
        let gx = ((d0 + d3 + d3 + d6) - (d2 + d5 + d5 + d8)) * invEW
        let gy = ((d6 + d7 + d7 + d8) - (d0 + d1 + d1 + d2)) * invNS
        // Positive: adding a half and truncating rounds to nearest.
        let shade = min(255, max(1, kernel(gx, gy))) + 0.5
        return UInt8(truncatingIfNeeded: Int(shade))
    }

    /// Four pixels side by side (`shadeOne`'s arithmetic on lanes) into `line`; false, nothing
    /// written, when any of their 3×3 windows holds a void.
    @inline(__always)
    private static func shadeFour(
        above: UnsafePointer<Float>, centre: UnsafePointer<Float>, below: UnsafePointer<Float>, into line: UnsafeMutablePointer<UInt8>,
        invEW: Double, invNS: Double, light: Light
    ) -> Bool {
        @inline(__always) func load(_ p: UnsafePointer<Float>) -> Lanes {
            let f = UnsafeRawPointer(p).loadUnaligned(as: SIMD4<Float>.self)
            return Lanes(Double(f[0]), Double(f[1]), Double(f[2]), Double(f[3]))
        }
        let d0 = load(above - 1), d1 = load(above), d2 = load(above + 1)
        let d3 = load(centre - 1), d4 = load(centre), d5 = load(centre + 1)
        let d6 = load(below - 1), d7 = load(below), d8 = load(below + 1)
        // A sum is NaN when any term is (a void somewhere in the four windows).
        let all = d0 + d1 + d2 + d3 + d4 + d5 + d6 + d7 + d8
        if (all[0] + all[1] + all[2] + all[3]).isNaN { return false }
        let gx = ((d0 + d3 + d3 + d6) - (d2 + d5 + d5 + d8)) * invEW
        let gy = ((d6 + d7 + d7 + d8) - (d0 + d1 + d1 + d2)) * invNS
        let one = Lanes(repeating: 1), top = Lanes(repeating: 255)
        var k = light.single(gx, gy)
        k = k.replacing(with: one, where: .!(k .>= one))
        k = k.replacing(with: top, where: k .> top)
        // In 1.5-255.5: truncating rounds to nearest, as `shadeOne` does.
        let shade = k + 0.5
        line[0] = UInt8(shade[0])
        line[1] = UInt8(shade[1])
        line[2] = UInt8(shade[2])
        line[3] = UInt8(shade[3])
        return true
    }

    /// The light's terms, computed once (gdaldem's precomputed form: no trigonometry per pixel
    /// except in the combined variant, which needs the slope's angle).
    private struct Light {
        let sinAlt: Double, cosAltZ: Double, cosAzCosAltZ: Double, sinAzCosAltZ: Double
        let squareZ: Double, cos225CosAltZ: Double

        init(_ options: HillshadeOptions) {
            let rad = Double.pi / 180
            let zf = options.zFactor / 8
            sinAlt = sin(options.altitude * rad)
            cosAltZ = cos(options.altitude * rad) * zf
            let az = options.azimuth * rad
            cosAzCosAltZ = cos(az) * cosAltZ
            sinAzCosAltZ = sin(az) * cosAltZ
            squareZ = zf * zf
            cos225CosAltZ = cos(225 * rad) * cosAltZ
        }

        @inline(__always) func single(_ gx: Double, _ gy: Double) -> Double {
            let xxyy = gx * gx + gy * gy
            let c254 = 254 * (sinAlt - (gy * cosAzCosAltZ - gx * sinAzCosAltZ)) / (1 + squareZ * xxyy).squareRoot()
            return c254 <= 0 ? 1 : 1 + c254
        }

        /// `single` on four pixels at once.
        @inline(__always) func single(_ gx: Lanes, _ gy: Lanes) -> Lanes {
            let xxyy = gx * gx + gy * gy
            let c254 = 254 * (sinAlt - (gy * cosAzCosAltZ - gx * sinAzCosAltZ)) / (1 + squareZ * xxyy).squareRoot()
            return Lanes(repeating: 1).replacing(with: 1 + c254, where: c254 .> 0)
        }

        @inline(__always) func combined(_ gx: Double, _ gy: Double) -> Double {
            let slope = (gx * gx + gy * gy) * squareZ
            let cosine = (sinAlt - (gy * cosAzCosAltZ - gx * sinAzCosAltZ)) / (1 + slope).squareRoot()
            let angle = acos(min(1, max(-1, cosine)))
            let c = 1 - angle * atan(slope.squareRoot()) / (Double.pi * Double.pi / 4)
            return c <= 0 ? 1 : 1 + 254 * c
        }

        @inline(__always) func multidirectional(_ gx: Double, _ gy: Double) -> Double {
            let xxyy = gx * gx + gy * gy
            if xxyy == 0 { return 1 + 254 * sinAlt }
            let s127 = 127 * sinAlt
            let v225 = max(0, s127 + (gx - gy) * 127 * cos225CosAltZ)
            let v270 = max(0, s127 - gx * 127 * cosAltZ)
            let v315 = max(0, s127 + (gx + gy) * 127 * cos225CosAltZ)
            let v360 = max(0, s127 - gy * 127 * cosAltZ)
            let w225 = 0.5 * xxyy - gx * gy, w270 = gx * gx, w315 = xxyy - w225, w360 = gy * gy
            let c127 = (w225 * v225 + w270 * v270 + w315 * v315 + w360 * v360) / xxyy / (1 + squareZ * xxyy).squareRoot()
            return 1 + c127
        }
    }
}
