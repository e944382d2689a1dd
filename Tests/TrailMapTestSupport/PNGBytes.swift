/// Byte-level PNG helpers: IHDR fields, chunk positions, hand-made PNGs.
public enum PNGBytes {
    public static let signature: [UInt8] = [137, 80, 78, 71, 13, 10, 26, 10]

    public static func colorType(_ png: [UInt8]) -> UInt8 { png[25] }
    public static func bitDepth(_ png: [UInt8]) -> UInt8 { png[24] }
    public static func interlace(_ png: [UInt8]) -> UInt8 { png[28] }

    /// Chunks as (type, offset of the length field, data length).
    public static func chunks(_ png: [UInt8]) -> [(type: String, offset: Int, length: Int)] {
        var result: [(String, Int, Int)] = []
        var offset = 8
        while offset + 12 <= png.count {
            let length = png[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            let type = String(decoding: png[offset + 4..<offset + 8], as: UTF8.self)
            result.append((type, offset, length))
            offset += 12 + length
        }
        return result
    }

    public static let crcTable: [UInt32] = (0..<256).map { n in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    public static func crc32(_ bytes: [UInt8]) -> UInt32 {
        ~bytes.reduce(0xFFFF_FFFF as UInt32) { crcTable[Int(($0 ^ UInt32($1)) & 0xFF)] ^ ($0 >> 8) }
    }

    public static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
    }

    public static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let body = Array(type.utf8) + data
        return bigEndian(UInt32(data.count)) + body + bigEndian(crc32(body))
    }

    /// A zlib stream of stored (uncompressed) deflate blocks.
    public static func zlibStored(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x78, 0x01]
        var start = 0
        repeat {
            let count = min(65535, data.count - start)
            let final: UInt8 = start + count == data.count ? 1 : 0
            out += [final, UInt8(count & 0xFF), UInt8(count >> 8), UInt8(~count & 0xFF), UInt8((~count >> 8) & 0xFF)]
            out += data[start..<start + count]
            start += count
        } while start < data.count
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in data {
            a = (a + UInt32(byte)) % 65521
            b = (b + a) % 65521
        }
        return out + bigEndian(b << 16 | a)
    }

    public static func ihdr(width: UInt32, height: UInt32, bitDepth: UInt8, colorType: UInt8, interlace: UInt8 = 0) -> [UInt8] {
        chunk("IHDR", bigEndian(width) + bigEndian(height) + [bitDepth, colorType, 0, 0, interlace])
    }

    /// A non-interlaced PNG from packed rows (filter type 0 is prepended to each row).
    public static func make(
        width: Int, height: Int, bitDepth: UInt8, colorType: UInt8, rows: [[UInt8]],
        palette: [UInt8]? = nil, transparency: [UInt8]? = nil
    ) -> [UInt8] {
        var png = signature + ihdr(width: UInt32(width), height: UInt32(height), bitDepth: bitDepth, colorType: colorType)
        if let palette { png += chunk("PLTE", palette) }
        if let transparency { png += chunk("tRNS", transparency) }
        png += chunk("IDAT", zlibStored(rows.flatMap { [0] + $0 }))
        return png + chunk("IEND", [])
    }
}
