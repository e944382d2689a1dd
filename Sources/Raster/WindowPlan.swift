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

    /// Level pixels read at once, at most: a window halved many times (a source without
    /// overviews at a zoom far coarser than its pixels) is read in chunks of up to this many, so
    /// memory stays bounded however large the window (16 MB of RGBA).
    static let chunkPixels = 1 << 22

    /// Reads effective pixels [x0, x1) × [y0, y1) (inside the level) into `buffer`, `(x1-x0) * 4`
    /// bytes a row: the level's window, halved `halvings` times by alpha-weighted 2×2 means.
    /// A large window is read in chunks aligned to the halvings' 2×2 blocks (the same result).
    /// (`chunkPixels` and `chunkHalvings`, the most halvings done chunk by chunk, are for tests.)
    func read(
        from reader: any SourceWindowReader, x0: Int, y0: Int, x1: Int, y1: Int, into buffer: inout [UInt8],
        chunkPixels: Int = Self.chunkPixels, chunkHalvings: Int = 11
    ) throws {
        let d = 1 << halvings
        let lv = reader.levels[level]
        let lx0 = x0 * d, ly0 = y0 * d
        let lx1 = min(x1 * d, lv.width), ly1 = min(y1 * d, lv.height)
        let w = lx1 - lx0, h = ly1 - ly0
        if w * h <= chunkPixels {
            if buffer.count < w * h * 4 { buffer = [UInt8](repeating: 0, count: w * h * 4) }
            try buffer.withUnsafeMutableBufferPointer { b in
                try reader.readWindow(level: level, x0: lx0, y0: ly0, width: w, height: h, into: b.baseAddress!)
                var (cw, ch) = (w, h)
                for _ in 0..<halvings { (cw, ch) = Decimation.halve(b.baseAddress!, width: cw, height: ch) }
            }
            return
        }
        // In chunks: first halved `k1` times (a chunk at least one block of 2^k1 level pixels a
        // side), straight into `buffer` when that is all, else into an intermediate image that is
        // then halved the remaining times.
        let k1 = min(halvings, chunkHalvings), d1 = 1 << k1
        let side = max(1, Int(Double(chunkPixels).squareRoot()) / d1) // intermediate pixels a chunk side
        let iw = (w + d1 - 1) / d1, ih = (h + d1 - 1) / d1
        let direct = k1 == halvings
        // The intermediate image within 16 chunks (only a window of millions of pixels a side,
        // halved more than `chunkHalvings` times, exceeds it).
        guard direct || iw * ih <= 16 * chunkPixels else { throw WindowReadError.tooCoarse(perPixel: d) }
        var inter = [UInt8]()
        if direct {
            if buffer.count < iw * ih * 4 { buffer = [UInt8](repeating: 0, count: iw * ih * 4) }
        } else {
            inter = [UInt8](repeating: 0, count: iw * ih * 4)
        }
        var chunk = [UInt8](repeating: 0, count: min(side * d1, w) * min(side * d1, h) * 4)
        for cy in stride(from: 0, to: ih, by: side) {
            for cx in stride(from: 0, to: iw, by: side) {
                let cx1 = min(cx + side, iw), cy1 = min(cy + side, ih)
                let px0 = lx0 + cx * d1, py0 = ly0 + cy * d1
                let pw = min(lx0 + cx1 * d1, lx1) - px0, ph = min(ly0 + cy1 * d1, ly1) - py0
                try chunk.withUnsafeMutableBufferPointer { c in
                    try reader.readWindow(level: level, x0: px0, y0: py0, width: pw, height: ph, into: c.baseAddress!)
                    var (cw, ch) = (pw, ph)
                    for _ in 0..<k1 { (cw, ch) = Decimation.halve(c.baseAddress!, width: cw, height: ch) }
                    func place(_ out: UnsafeMutablePointer<UInt8>) {
                        for row in 0..<ch {
                            (out + ((cy + row) * iw + cx) * 4).update(from: c.baseAddress! + row * cw * 4, count: cw * 4)
                        }
                    }
                    if direct {
                        buffer.withUnsafeMutableBufferPointer { place($0.baseAddress!) }
                    } else {
                        inter.withUnsafeMutableBufferPointer { place($0.baseAddress!) }
                    }
                }
            }
        }
        guard !direct else { return }
        var (cw, ch) = (iw, ih)
        inter.withUnsafeMutableBufferPointer { i in
            for _ in k1..<halvings { (cw, ch) = Decimation.halve(i.baseAddress!, width: cw, height: ch) }
        }
        if buffer.count < cw * ch * 4 { buffer = [UInt8](repeating: 0, count: cw * ch * 4) }
        buffer.withUnsafeMutableBufferPointer { b in
            inter.withUnsafeBufferPointer { b.baseAddress!.update(from: $0.baseAddress!, count: cw * ch * 4) }
        }
    }
}

/// Why a source window cannot be read.
public enum WindowReadError: Error, CustomStringConvertible {
    /// A zoom whose tile pixels each span `perPixel` × `perPixel` pixels of the source's coarsest
    /// level, over a window too large to reduce within bounded memory.
    case tooCoarse(perPixel: Int)

    public var description: String {
        switch self {
        case let .tooCoarse(d):
            """
            a tile pixel at this zoom spans \(d)×\(d) of its pixels and it has no overview that coarse: add overviews (gdaladdo -r \
            average FILE) or build higher zooms only
            """
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
