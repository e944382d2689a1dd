import Foundation

/// Which pixels a tile samples: a level of the source, reduced further by 2×2 averaging `halvings`
/// times where the source has no overview that coarse ("our own pyramid", made per window).
/// Coordinates in a plan are *effective* pixels: full-resolution pixels divided by `scaleX`/`scaleY`.
struct WindowPlan {
    let level: Int
    let halvings: Int
    /// Full-resolution pixels per effective pixel.
    let scaleX: Double
    let scaleY: Double
    /// The level's size in effective pixels.
    let width: Int
    let height: Int

    /// The plan for tile pixels spanning `ratio` full-resolution source pixels: sample where one
    /// tile pixel covers one to two pixels (a factor of 2^⌊log2 ratio⌋, 1 when overzoomed).
    init(levels: [SourceLevel], ratio: Double) {
        self.init(levels: levels, factor: ratio >= 2 ? exp2(log2(ratio).rounded(.down)) : 1)
    }

    /// The coarsest plan whose pixels are at most `factor` full-resolution pixels wide: the
    /// coarsest level within it, then halvings up to it.
    init(levels: [SourceLevel], factor: Double) {
        var chosen = 0
        for (i, lv) in levels.enumerated() where lv.scaleX <= factor * 1.01 && lv.scaleY <= factor * 1.01 {
            if lv.scaleX >= levels[chosen].scaleX { chosen = i }
        }
        let lv = levels[chosen]
        let k = max(0, Int((log2(factor / max(lv.scaleX, lv.scaleY)) + 0.01).rounded(.down)))
        let d = 1 << k
        level = chosen
        halvings = k
        scaleX = lv.scaleX * Double(d)
        scaleY = lv.scaleY * Double(d)
        width = (lv.width + d - 1) / d
        height = (lv.height + d - 1) / d
    }

    /// Reads effective pixels [x0, x1) × [y0, y1) (inside the level) into `buffer`, `(x1-x0) * 4`
    /// bytes a row: the level's window, halved `halvings` times by alpha-weighted 2×2 means.
    func read(from reader: any SourceWindowReader, x0: Int, y0: Int, x1: Int, y1: Int, into buffer: inout [UInt8]) throws {
        let d = 1 << halvings
        let lv = reader.levels[level]
        let lx0 = x0 * d, ly0 = y0 * d
        let lx1 = min(x1 * d, lv.width), ly1 = min(y1 * d, lv.height)
        let w = lx1 - lx0, h = ly1 - ly0
        if buffer.count < w * h * 4 { buffer = [UInt8](repeating: 0, count: w * h * 4) }
        try buffer.withUnsafeMutableBufferPointer { b in
            try reader.readWindow(level: level, x0: lx0, y0: ly0, width: w, height: h, into: b.baseAddress!)
            var (cw, ch) = (w, h)
            for _ in 0..<halvings { (cw, ch) = Decimation.halve(b.baseAddress!, width: cw, height: ch) }
        }
    }
}

/// 2×2 alpha-weighted averaging, as the source pyramid's overviews are made.
enum Decimation {
    /// Halves an RGBA image in place (the result at the start of the buffer); odd last rows and
    /// columns pair with themselves. Returns the new size.
    @discardableResult
    static func halve(_ p: UnsafeMutablePointer<UInt8>, width w: Int, height h: Int) -> (Int, Int) {
        let ow = (w + 1) / 2, oh = (h + 1) / 2
        for j in 0..<oh {
            let r0 = 2 * j * w, r1 = min(2 * j + 1, h - 1) * w
            for i in 0..<ow {
                let c0 = 2 * i, c1 = min(2 * i + 1, w - 1)
                var sa = 0, sr = 0, sg = 0, sb = 0
                @inline(__always) func add(_ q: Int) {
                    let a = Int(p[q * 4 + 3])
                    sa += a
                    sr += Int(p[q * 4]) * a
                    sg += Int(p[q * 4 + 1]) * a
                    sb += Int(p[q * 4 + 2]) * a
                }
                add(r0 + c0)
                add(r0 + c1)
                add(r1 + c0)
                add(r1 + c1)
                let o = (j * ow + i) * 4
                if sa > 0 {
                    p[o] = UInt8((sr + sa / 2) / sa)
                    p[o + 1] = UInt8((sg + sa / 2) / sa)
                    p[o + 2] = UInt8((sb + sa / 2) / sa)
                    p[o + 3] = UInt8((sa + 2) / 4)
                } else {
                    p[o] = 0; p[o + 1] = 0; p[o + 2] = 0; p[o + 3] = 0
                }
            }
        }
        return (ow, oh)
    }
}
