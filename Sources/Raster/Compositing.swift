/// Alpha compositing of straight-alpha RGBA images.
public enum Compositing {
    /// Draws `top` over `bottom` ("source over"); both must have the same size.
    public static func draw(_ top: RGBAImage, over bottom: inout RGBAImage) {
        precondition(top.width == bottom.width && top.height == bottom.height)
        top.pixels.withUnsafeBufferPointer { t in
            bottom.pixels.withUnsafeMutableBufferPointer { b in
                var p = 0
                while p < t.count {
                    let ta = Int(t[p + 3])
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
}
