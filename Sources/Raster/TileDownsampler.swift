/// Lower zoom levels from higher ones: a tile is the 2×2 alpha-weighted mean of its four
/// children, as gdal2tiles makes its overview tiles, so a level agrees with the one below it.
public enum TileDownsampler {
    /// The parent of four children given in `TileID.children` order (top-left, top-right,
    /// bottom-left, bottom-right; nil is fully transparent). Nil when every child is nil.
    public static func parent(of children: [RGBAImage?], tileSize n: Int) -> RGBAImage? {
        precondition(children.count == 4)
        guard children.contains(where: { $0 != nil }) else { return nil }
        var out = [UInt8](repeating: 0, count: n * n * 4), alternates = out
        let half = n / 2
        out.withUnsafeMutableBufferPointer { o in
            alternates.withUnsafeMutableBufferPointer { alt in
                for (q, child) in children.enumerated() {
                    guard let child else { continue }
                    precondition(child.width == n && child.height == n)
                    let ox = (q % 2) * half, oy = (q / 2) * half
                    child.pixels.withUnsafeBufferPointer { c in
                        for j in 0..<half {
                            let r0 = 2 * j * n, r1 = r0 + n
                            for i in 0..<half {
                                let a0 = (r0 + 2 * i) * 4, a1 = a0 + 4, b0 = (r1 + 2 * i) * 4, b1 = b0 + 4
                                let w0 = Int(c[a0 + 3]), w1 = Int(c[a1 + 3]), w2 = Int(c[b0 + 3]), w3 = Int(c[b1 + 3])
                                let sa = w0 + w1 + w2 + w3
                                guard sa > 0 else { continue }
                                let o4 = ((oy + j) * n + ox + i) * 4
                                for ch in 0..<3 {
                                    let s = Int(c[a0 + ch]) * w0 + Int(c[a1 + ch]) * w1 + Int(c[b0 + ch]) * w2 + Int(c[b1 + ch]) * w3
                                    let v = UInt8((s + sa / 2) / sa)
                                    o[o4 + ch] = v
                                    alt[o4 + ch] = RoundingPair.other(sum: s, count: sa, rounded: v)
                                }
                                o[o4 + 3] = UInt8((sa + 2) / 4)
                                alt[o4 + 3] = o[o4 + 3]
                            }
                        }
                    }
                }
            }
        }
        let image = RGBAImage(width: n, height: n, pixels: out, roundingAlternates: alternates)
        return image.isFullyTransparent ? nil : image
    }
}
