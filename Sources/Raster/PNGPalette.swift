/// The distinct colours of an image (at most 256) and each pixel's palette index.
/// Entries with alpha < 255 come first so the tRNS chunk is as short as possible.
struct PNGPalette {
    /// RGBA colours packed little-endian (R in the low byte), in palette order.
    let entries: [UInt32]
    /// How many leading entries have alpha < 255 (the tRNS length).
    let translucentCount: Int
    /// One palette index per pixel, row-major.
    let indices: [UInt8]

    /// Smallest PNG bit depth holding every index: 1, 2, 4 or 8.
    var bitDepth: Int {
        switch entries.count {
        case ...2: return 1
        case ...4: return 2
        case ...16: return 4
        default: return 8
        }
    }

    /// PLTE bytes: RGB triplets.
    var rgb: [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(entries.count * 3)
        for color in entries {
            bytes.append(UInt8(truncatingIfNeeded: color))
            bytes.append(UInt8(truncatingIfNeeded: color >> 8))
            bytes.append(UInt8(truncatingIfNeeded: color >> 16))
        }
        return bytes
    }

    /// tRNS bytes: alpha of the leading translucent entries.
    var alpha: [UInt8] {
        entries.prefix(translucentCount).map { UInt8(truncatingIfNeeded: $0 >> 24) }
    }

    /// Builds the palette, or returns nil as soon as a 257th colour shows up.
    static func analyze(_ image: RGBAImage) -> PNGPalette? {
        image.pixels.withUnsafeBytes { raw in
            analyze(pixelCount: image.width * image.height) {
                UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: $0 &* 4, as: UInt32.self))
            }
        }
    }

    /// The palette of a grey image: its colours as those of its RGBA form, in the same order.
    static func analyze(_ image: GrayImage) -> PNGPalette? {
        image.gray.withUnsafeBufferPointer { g in
            guard let alpha = image.alpha else {
                return analyze(pixelCount: image.width * image.height) { UInt32(g[$0]) &* 0x01_0101 | 0xFF00_0000 }
            }
            return alpha.withUnsafeBufferPointer { a in
                analyze(pixelCount: image.width * image.height) { UInt32(g[$0]) &* 0x01_0101 | UInt32(a[$0]) << 24 }
            }
        }
    }

    /// The palette of `pixelCount` pixels, `colorAt(i)` giving pixel i's RGBA colour packed
    /// little-endian; nil past 256 colours.
    @inline(__always)
    private static func analyze(pixelCount: Int, colorAt: (Int) -> UInt32) -> PNGPalette? {
        let slotCount = 1024 // load factor <= 25 %
        var keys = [UInt32](repeating: 0, count: slotCount)
        var slots = [Int16](repeating: -1, count: slotCount)
        var colors: [UInt32] = []
        colors.reserveCapacity(256)
        var tooMany = false

        var indices = [UInt8](unsafeUninitializedCapacity: pixelCount) { out, initialized in
            keys.withUnsafeMutableBufferPointer { keys in
                slots.withUnsafeMutableBufferPointer { slots in
                    var lastColor: UInt32 = 0
                    var lastIndex: UInt8 = 0
                    var haveLast = false
                    for i in 0..<pixelCount {
                        let color = colorAt(i)
                        if haveLast && color == lastColor {
                            out[i] = lastIndex
                            continue
                        }
                        var slot = Int((color &* 0x9E37_79B1) >> 22)
                        while true {
                            let index = slots[slot]
                            if index < 0 {
                                if colors.count == 256 {
                                    tooMany = true
                                    break
                                }
                                slots[slot] = Int16(colors.count)
                                keys[slot] = color
                                lastIndex = UInt8(colors.count)
                                colors.append(color)
                                break
                            }
                            if keys[slot] == color {
                                lastIndex = UInt8(index)
                                break
                            }
                            slot = (slot + 1) & (slotCount - 1)
                        }
                        if tooMany { break }
                        lastColor = color
                        haveLast = true
                        out[i] = lastIndex
                    }
                }
            }
            initialized = tooMany ? 0 : pixelCount
        }
        guard !tooMany else { return nil }

        // Stable partition: translucent colours first, then opaque ones.
        var order = colors.indices.filter { colors[$0] >> 24 != 255 }
        let translucentCount = order.count
        order += colors.indices.filter { colors[$0] >> 24 == 255 }
        var newIndex = [UInt8](repeating: 0, count: 256)
        for (new, old) in order.enumerated() {
            newIndex[old] = UInt8(new)
        }
        if order != Array(colors.indices) {
            newIndex.withUnsafeBufferPointer { map in
                indices.withUnsafeMutableBufferPointer { indices in
                    for i in indices.indices {
                        indices[i] = map[Int(indices[i])]
                    }
                }
            }
        }
        return PNGPalette(entries: order.map { colors[$0] }, translucentCount: translucentCount, indices: indices)
    }
}
