/// Alpha compositing of straight-alpha RGBA images.
public enum Compositing {
    /// Draws `top` over `bottom` ("source over"), `top`'s alpha multiplied by `opacity` (0...1);
    /// both must have the same size.
    public static func draw(_ top: RGBAImage, over bottom: inout RGBAImage, opacity: Double = 1) {
        precondition(top.width == bottom.width && top.height == bottom.height)
        let factor = Int((min(max(opacity, 0), 1) * 256).rounded())
        top.pixels.withUnsafeBufferPointer { t in
            bottom.pixels.withUnsafeMutableBufferPointer { b in
                var p = 0
                while p < t.count {
                    let ta = factor >= 256 ? Int(t[p + 3]) : (Int(t[p + 3]) * factor + 128) >> 8
                    if ta == 255 {
                        b[p] = t[p]; b[p + 1] = t[p + 1]; b[p + 2] = t[p + 2]; b[p + 3] = 255
                    } else if ta > 0 {
                        let ba = Int(b[p + 3]) * (255 - ta) / 255
                        let oa = ta + ba
                        for c in 0..<3 {
                            b[p + c] = UInt8((Int(t[p + c]) * ta + Int(b[p + c]) * ba + oa / 2) / oa)
                        }
                        b[p + 3] = UInt8(oa)
                    }
                    p += 4
                }
            }
        }
    }

    /// Joins `top` onto `bottom` where they are sheets of one series: their coverages add up
    /// (Porter–Duff "disjoint over"). A pixel that each of two neighbouring sheets covers in part
    /// along their shared edge is covered by both together, not left see-through as "over" would
    /// leave it (0.6 and 0.4 make 1, not 0.76); where `top` covers a pixel fully it wins, and where
    /// `bottom` does it shows through whatever `top` leaves, as with "over". Both must have the same size.
    /// Each sheet's coverage was rounded to 1/255, so parts that make a whole can add up to a
    /// little less (four quarter-pixels where four sheets meet made 254): two partial coverages
    /// within `roundingSlack` of full make it full.
    public static func join(_ top: RGBAImage, onto bottom: inout RGBAImage) {
        precondition(top.width == bottom.width && top.height == bottom.height)
        top.pixels.withUnsafeBufferPointer { t in
            bottom.pixels.withUnsafeMutableBufferPointer { b in
                var p = 0
                while p < t.count {
                    let ta = Int(t[p + 3])
                    if ta == 255 {
                        b[p] = t[p]; b[p + 1] = t[p + 1]; b[p + 2] = t[p + 2]; b[p + 3] = 255
                    } else if ta > 0 {
                        // The part of the bottom's coverage that the top leaves.
                        let ba = min(Int(b[p + 3]), 255 - ta)
                        let oa = ta + ba
                        for c in 0..<3 {
                            b[p + c] = UInt8((Int(t[p + c]) * ta + Int(b[p + c]) * ba + oa / 2) / oa)
                        }
                        b[p + 3] = ba > 0 && oa >= 255 - roundingSlack ? 255 : UInt8(oa)
                    }
                    p += 4
                }
            }
        }
    }

    /// How far below 255 the sum of rounded partial coverages may fall and still be full: half a
    /// step for each of up to four sheets meeting at a pixel, plus one.
    static let roundingSlack = 2

    /// Multiplies every pixel's alpha by `opacity` (0...1).
    public static func fade(_ image: inout RGBAImage, opacity: Double) {
        let factor = Int((min(max(opacity, 0), 1) * 256).rounded())
        guard factor < 256 else { return }
        image.pixels.withUnsafeMutableBufferPointer { b in
            var p = 3
            while p < b.count {
                b[p] = UInt8((Int(b[p]) * factor + 128) >> 8)
                p += 4
            }
        }
    }
}
