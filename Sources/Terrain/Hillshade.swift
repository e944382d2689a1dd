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
    public static func shade(_ grid: ElevationGrid, options: HillshadeOptions,
                             groundPixelSize: (Int) -> Double) -> [UInt8] {
        let n = grid.size
        var out = [UInt8](repeating: 0, count: n * n)
        let rad = Double.pi / 180
        let zf = options.zFactor / 8
        let sinAlt = sin(options.altitude * rad), cosAltZ = cos(options.altitude * rad) * zf
        let az = options.azimuth * rad
        let cosAzCosAltZ = cos(az) * cosAltZ, sinAzCosAltZ = sin(az) * cosAltZ
        let squareZ = zf * zf
        let cos225CosAltZ = cos(225 * rad) * cosAltZ
        grid.values.withUnsafeBufferPointer { v in
            let s = grid.stride, b = grid.border
            var w = [Double](repeating: 0, count: 9)
            for y in 0..<n {
                let res = groundPixelSize(y)
                let invEW = 1 / res, invNS = -1 / res  // north-up: gdaldem's nsres is negative
                for x in 0..<n {
                    let c = (y + b) * s + x + b
                    let centre = v[c]
                    if centre.isNaN { continue }
                    var k = 0
                    for dy in -1...1 {
                        for dx in -1...1 {
                            let e = v[c + dy * s + dx]
                            w[k] = Double(e.isNaN ? centre : e)
                            k += 1
                        }
                    }
                    let gx = ((w[0] + w[3] + w[3] + w[6]) - (w[2] + w[5] + w[5] + w[8])) * invEW
                    let gy = ((w[6] + w[7] + w[7] + w[8]) - (w[0] + w[1] + w[1] + w[2])) * invNS
                    let xxyy = gx * gx + gy * gy
                    let shade: Double
                    switch options.mode {
                    case .single:
                        let c254 = 254 * (sinAlt - (gy * cosAzCosAltZ - gx * sinAzCosAltZ)) / (1 + squareZ * xxyy).squareRoot()
                        shade = c254 <= 0 ? 1 : 1 + c254
                    case .combined:
                        let slope = xxyy * squareZ
                        let cosine = (sinAlt - (gy * cosAzCosAltZ - gx * sinAzCosAltZ)) / (1 + slope).squareRoot()
                        let angle = acos(min(1, max(-1, cosine)))
                        let c = 1 - angle * atan(slope.squareRoot()) / (Double.pi * Double.pi / 4)
                        shade = c <= 0 ? 1 : 1 + 254 * c
                    case .multidirectional:
                        if xxyy == 0 { shade = 1 + 254 * sinAlt; break }
                        let s127 = 127 * sinAlt
                        let v225 = max(0, s127 + (gx - gy) * 127 * cos225CosAltZ)
                        let v270 = max(0, s127 - gx * 127 * cosAltZ)
                        let v315 = max(0, s127 + (gx + gy) * 127 * cos225CosAltZ)
                        let v360 = max(0, s127 - gy * 127 * cosAltZ)
                        let w225 = 0.5 * xxyy - gx * gy, w270 = gx * gx, w315 = xxyy - w225, w360 = gy * gy
                        let c127 = (w225 * v225 + w270 * v270 + w315 * v315 + w360 * v360) / xxyy / (1 + squareZ * xxyy).squareRoot()
                        shade = 1 + c127
                    }
                    out[y * n + x] = UInt8(max(1, min(255, shade.rounded())))
                }
            }
        }
        return out
    }
}
