import CPNG

/// Packed rows in one PNG colour type and bit depth, ready for the C encoder.
struct PNGLayout {
    let width: Int
    let height: Int
    let colorType: Int32
    let bitDepth: Int
    /// Rows packed with stride `ceil(width * channels * bitDepth / 8)`.
    let rows: [UInt8]
    /// PLTE bytes (palette type only).
    var palette: [UInt8] = []
    /// tRNS bytes (palette type only).
    var transparency: [UInt8] = []
    /// Per byte of `rows`, a value the encoder may store instead (`TileRounding.compact`; 8-bit
    /// gray and truecolour only), or nil.
    var alternates: [UInt8]?

    /// The image as RGBA8, unchanged.
    static func rgba(_ image: RGBAImage) -> PNGLayout {
        PNGLayout(width: image.width, height: image.height, colorType: CPNG_COLOR_RGBA, bitDepth: 8, rows: image.pixels)
    }

    /// This layout with the image's rounding alternates packed like its rows (8-bit gray and
    /// truecolour layouts of that image). Alpha is stored exactly.
    func withAlternates(of image: RGBAImage) -> PNGLayout {
        guard var source = image.roundingAlternates, bitDepth == 8, colorType != CPNG_COLOR_PALETTE else { return self }
        image.pixels.withUnsafeBufferPointer { pixels in
            source.withUnsafeMutableBufferPointer { s in
                var p = 3
                while p < s.count {
                    s[p] = pixels[p]
                    p += 4
                }
            }
        }
        var layout = self
        layout.alternates = Self.pack(source, pixelCount: image.width * image.height, channels: Self.channelCount(colorType))
        return layout
    }

    /// Bytes per pixel of an 8-bit colour type other than palette.
    static func channelCount(_ colorType: Int32) -> Int {
        switch colorType {
        case CPNG_COLOR_RGB: 3
        case CPNG_COLOR_GRAY_ALPHA: 2
        case CPNG_COLOR_GRAY: 1
        default: 4
        }
    }

    /// Which channels an image really needs.
    static func channelInfo(_ image: RGBAImage) -> (opaque: Bool, gray: Bool) {
        image.pixels.withUnsafeBytes { raw in
            var opaque = true
            var gray = true
            for i in 0..<(image.width * image.height) {
                let p = UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: i * 4, as: UInt32.self))
                if p >> 24 != 255 { opaque = false }
                let r = p & 0xFF, g = (p >> 8) & 0xFF, b = (p >> 16) & 0xFF
                if r != g || g != b { gray = false }
                if !opaque && !gray { break }
            }
            return (opaque, gray)
        }
    }

    /// Whether a gray image (R = G = B) has at most `limit` distinct levels.
    static func hasFewGrayLevels(_ image: RGBAImage, atMost limit: Int) -> Bool {
        image.pixels.withUnsafeBufferPointer { hasFewLevels($0, step: 4, atMost: limit) }
    }

    /// Whether a grey image has at most `limit` distinct grey levels.
    static func hasFewGrayLevels(_ image: GrayImage, atMost limit: Int) -> Bool {
        image.gray.withUnsafeBufferPointer { hasFewLevels($0, step: 1, atMost: limit) }
    }

    /// Whether every `step`-th byte of `px` (from the first) takes at most `limit` values.
    private static func hasFewLevels(_ px: UnsafeBufferPointer<UInt8>, step: Int, atMost limit: Int) -> Bool {
        var seen = (UInt128(0), UInt128(0)), count = 0
        var i = 0
        while i < px.count {
            let v = Int(px[i])
            let bit = UInt128(1) << (v & 127)
            if v < 128 {
                if seen.0 & bit == 0 { seen.0 |= bit; count += 1 }
            } else if seen.1 & bit == 0 {
                seen.1 |= bit
                count += 1
            }
            if count > limit { return false }
            i += step
        }
        return true
    }

    /// A grey image as 8-bit gray (`opaque`: its alpha, all 255, dropped) or gray and alpha.
    static func gray(_ image: GrayImage, opaque: Bool) -> PNGLayout {
        let count = image.width * image.height
        guard !opaque, let alpha = image.alpha else {
            return PNGLayout(width: image.width, height: image.height, colorType: CPNG_COLOR_GRAY, bitDepth: 8, rows: image.gray)
        }
        let rows = [UInt8](unsafeUninitializedCapacity: count * 2) { out, initialized in
            image.gray.withUnsafeBufferPointer { g in
                alpha.withUnsafeBufferPointer { a in
                    for i in 0..<count {
                        out[i &* 2] = g[i]
                        out[i &* 2 &+ 1] = a[i]
                    }
                }
            }
            initialized = count * 2
        }
        return PNGLayout(width: image.width, height: image.height, colorType: CPNG_COLOR_GRAY_ALPHA, bitDepth: 8, rows: rows)
    }

    /// Drops the channels an image does not need: RGBA, RGB, gray+alpha or gray, 8-bit.
    static func truecolor(_ image: RGBAImage, opaque: Bool, gray: Bool) -> PNGLayout {
        let colorType: Int32
        switch (opaque, gray) {
        case (false, false): return rgba(image)
        case (true, false): colorType = CPNG_COLOR_RGB
        case (false, true): colorType = CPNG_COLOR_GRAY_ALPHA
        case (true, true): colorType = CPNG_COLOR_GRAY
        }
        let rows = pack(image.pixels, pixelCount: image.width * image.height, channels: channelCount(colorType))
        return PNGLayout(width: image.width, height: image.height, colorType: colorType, bitDepth: 8, rows: rows)
    }

    /// RGBA bytes reduced to `channels` per pixel: 1 red (gray), 2 red and alpha (gray and alpha),
    /// 3 red, green and blue, 4 all.
    private static func pack(_ rgba: [UInt8], pixelCount: Int, channels: Int) -> [UInt8] {
        guard channels < 4 else { return rgba }
        return [UInt8](unsafeUninitializedCapacity: pixelCount * channels) { out, initialized in
            rgba.withUnsafeBufferPointer { src in
                switch channels {
                case 1:
                    for i in 0..<pixelCount { out[i] = src[i &* 4] }
                case 2:
                    for i in 0..<pixelCount {
                        out[i &* 2] = src[i &* 4]
                        out[i &* 2 &+ 1] = src[i &* 4 &+ 3]
                    }
                default:
                    for i in 0..<pixelCount {
                        out[i &* 3] = src[i &* 4]
                        out[i &* 3 &+ 1] = src[i &* 4 &+ 1]
                        out[i &* 3 &+ 2] = src[i &* 4 &+ 2]
                    }
                }
            }
            initialized = pixelCount * channels
        }
    }

    /// Palette indices packed at the palette's smallest bit depth, most significant bits first.
    static func palette(_ palette: PNGPalette, width: Int, height: Int) -> PNGLayout {
        let depth = palette.bitDepth
        var rows = palette.indices
        if depth < 8 {
            let stride = (width * depth + 7) / 8
            let perByte = 8 / depth
            rows = [UInt8](unsafeUninitializedCapacity: stride * height) { out, initialized in
                palette.indices.withUnsafeBufferPointer { src in
                    for y in 0..<height {
                        let line = y * width
                        for byteIndex in 0..<stride {
                            var byte: UInt8 = 0
                            let x0 = byteIndex * perByte
                            for k in 0..<perByte {
                                let x = x0 + k
                                let value = x < width ? src[line + x] : 0
                                byte |= value << UInt8(8 - depth * (k + 1))
                            }
                            out[y * stride + byteIndex] = byte
                        }
                    }
                }
                initialized = stride * height
            }
        }
        return PNGLayout(
            width: width, height: height, colorType: CPNG_COLOR_PALETTE, bitDepth: depth, rows: rows,
            palette: palette.rgb, transparency: palette.alpha)
    }
}
