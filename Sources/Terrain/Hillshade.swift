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
        case .single: return shade(grid, groundPixelSize: groundPixelSize) { light.single($0, $1) }
        case .combined: return shade(grid, groundPixelSize: groundPixelSize) { light.combined($0, $1) }
        case .multidirectional: return shade(grid, groundPixelSize: groundPixelSize) { light.multidirectional($0, $1) }
        }
    }

    /// Horn's gradient of every non-void pixel, `kernel` turning it into a shade (1–255, unrounded).
    @inline(__always)
    private static func shade(
        _ grid: ElevationGrid, groundPixelSize: (Int) -> Double,
        kernel: (_ gx: Double, _ gy: Double) -> Double
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
                    for x in 0..<n {
                        let centre = centreRow[x]
                        if centre.isNaN {
                            line[x] = 0
                            continue
                        }
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
                        line[x] = UInt8(truncatingIfNeeded: Int(shade))
                    }
                }
            }
            initialized = n * n
        }
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
