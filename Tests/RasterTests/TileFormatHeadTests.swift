import Raster
import Testing
import TrailMapTestSupport

/// `TileFormat.sniff(head:)`, the server's allocation-free look at a tile's first bytes, agrees
/// with `TileFormat.sniff(_:)` on real tiles of every format, on every prefix of them (cut-short
/// magic numbers are no format), and on near misses of each magic number.
@Suite(.computeThreads) struct TileFormatHeadTests {
    /// One real tile of each format, from the encoders the builder uses.
    static func tiles() throws -> [TileFormat: [UInt8]] {
        let image = RGBAImage(width: 16, height: 16, fill: (200, 120, 40, 255))
        var out = [TileFormat: [UInt8]]()
        for format in TileFormat.allCases {
            var encoding = TileEncoding(png: .default)
            encoding.format = format
            out[format] = try encoding.encode(image)
        }
        return out
    }

    static func head(_ bytes: [UInt8]) -> TileFormat? {
        bytes.withUnsafeBytes { TileFormat.sniff(head: $0) }
    }

    @Test func realTilesAndEveryPrefix() throws {
        for (format, bytes) in try Self.tiles() {
            #expect(Self.head(bytes) == format, "\(format)")
            for n in 0...16 {
                let prefix = Array(bytes.prefix(n))
                #expect(Self.head(prefix) == TileFormat.sniff(prefix), "\(format), \(n) bytes")
            }
        }
        #expect(Self.head(Array("RIFF\u{0}\u{0}\u{0}\u{0}WEBPVP8L".utf8)) == .webp)
        #expect(Self.head(Array("RIFF\u{0}\u{0}\u{0}\u{0}WEB".utf8)) == nil, "11 bytes are not a WebP header")
    }

    /// Every one-byte change of each magic number: no format, as `sniff` says.
    @Test func nearMissesAreNoFormat() throws {
        for (format, bytes) in try Self.tiles() {
            let magic = format == .webp ? [0, 1, 2, 3, 8, 9, 10, 11] : format == .png ? Array(0..<8) : [0, 1, 2]
            for i in magic {
                var changed = Array(bytes.prefix(16))
                changed[i] ^= 0x20
                #expect(Self.head(changed) == nil && TileFormat.sniff(changed) == nil, "\(format), byte \(i)")
            }
        }
        #expect(Self.head([0x47, 0x49, 0x46, 0x38, 0x39, 0x61, 0, 0, 0, 0, 0, 0]) == nil, "GIF")
        #expect(Self.head([]) == nil)
    }
}
