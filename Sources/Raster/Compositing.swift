/// Alpha compositing of straight-alpha RGBA images.
public enum Compositing {
    /// Draws `top` over `bottom` ("source over"), `top`'s alpha multiplied by `opacity` (0...1);
    /// both must have the same size.
    public static func draw(_ top: RGBAImage, over bottom: inout RGBAImage, opacity: Double = 1) {
        precondition(top.width == bottom.width && top.height == bottom.height)
        let factor = Int((min(max(opacity, 0), 1) * 256).rounded())
        let carried = Carried(top, bottom)
        defer { carried?.finish(top, onto: &bottom, opacityFactor: factor) }
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
        let carried = Carried(top, bottom)
        defer { carried?.finish(top, onto: &bottom, opacityFactor: 256) }
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
        var alternates = image.roundingAlternates
        image.pixels.withUnsafeMutableBufferPointer { b in
            var p = 3
            while p < b.count {
                b[p] = UInt8((Int(b[p]) * factor + 128) >> 8)
                alternates?[p] = b[p]
                p += 4
            }
        }
        image.roundingAlternates = alternates
    }

    /// The rounding alternates of a composite (`RGBAImage.roundingAlternates`): a pixel the top
    /// covers fully takes the top's, one it leaves alone keeps the bottom's, and a blended one
    /// has none (its value was rounded again).
    private struct Carried {
        let top: [UInt8]
        let result: [UInt8]

        /// Nil when neither image has alternates.
        init?(_ top: RGBAImage, _ bottom: RGBAImage) {
            guard top.roundingAlternates != nil || bottom.roundingAlternates != nil else { return nil }
            self.top = top.roundingAlternates ?? top.pixels
            result = bottom.roundingAlternates ?? bottom.pixels
        }

        /// Sets `bottom`'s alternates once the composite is drawn (`opacityFactor` 256 is opaque).
        func finish(_ topImage: RGBAImage, onto bottom: inout RGBAImage, opacityFactor factor: Int) {
            var result = self.result
            topImage.pixels.withUnsafeBufferPointer { t in
                bottom.pixels.withUnsafeBufferPointer { b in
                    top.withUnsafeBufferPointer { ta in
                        result.withUnsafeMutableBufferPointer { r in
                            var p = 0
                            while p < t.count {
                                let alpha = factor >= 256 ? Int(t[p + 3]) : (Int(t[p + 3]) * factor + 128) >> 8
                                if alpha == 255 {
                                    r[p] = ta[p]; r[p + 1] = ta[p + 1]; r[p + 2] = ta[p + 2]
                                } else if alpha > 0 {
                                    r[p] = b[p]; r[p + 1] = b[p + 1]; r[p + 2] = b[p + 2]
                                }
                                r[p + 3] = b[p + 3]
                                p += 4
                            }
                        }
                    }
                }
            }
            bottom.roundingAlternates = result
        }
    }
}
