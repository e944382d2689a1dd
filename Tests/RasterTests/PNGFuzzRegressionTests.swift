import TrailMapTestSupport
import Foundation
import Testing
@testable import Raster

/// What the PNG decoder's fuzzer (`scripts/fuzz.sh`, `scripts/fuzz/png_decode_fuzz.c`) found.
@Suite("PNG codec: fuzz findings", .serialized, .computeThreads)
struct PNGFuzzRegressionTests {
    /// The process's virtual size in bytes (`VmSize` of /proc/self/status; nil without /proc).
    static func virtualSize() -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmSize:") }),
            let kib = line.split(separator: " ").dropFirst().first.flatMap({ Int($0) })
        else { return nil }
        return kib * 1024
    }

    /// A whole 1×1 gray PNG (no IEND), then the header of a `type` chunk declaring 2 GiB of data
    /// and the first 4 bytes of it: the shape of the fuzzer's 80-byte input (a pCAL chunk there).
    static func oversizedChunkAfterIDAT(_ type: String) -> [UInt8] {
        PNGBytes.signature + PNGBytes.ihdr(width: 1, height: 1, bitDepth: 8, colorType: 0)
            + PNGBytes.chunk("IDAT", PNGBytes.zlibStored([0, 0x80]))
            + PNGBytes.bigEndian(0x7FFF_0000) + Array(type.utf8) + Array("abcd".utf8)
    }

    /// Before the fix libpng allocated and zeroed a text or eXIf chunk's declared length before
    /// reading it (its "chunk data is too large" is a warning when reading): each decode of such a
    /// 70-byte tile made 2 GiB resident for 1.5 s of CPU, held until the reader closed (`bundle
    /// verify` decodes every tile of an untrusted bundle). The reader now skips every chunk that
    /// does not make pixels. (Measured with the reader still open, after `finish` failed; the
    /// least growth of three tries, so that another test's mapping cannot fail it.)
    @Test("an ancillary chunk declaring 2 GiB allocates nothing", arguments: ["tEXt", "zTXt", "iTXt", "eXIf"])
    func oversizedAncillaryChunk(type: String) throws {
        guard Self.virtualSize() != nil else { return }
        let png = Self.oversizedChunkAfterIDAT(type)
        var growth: [Int] = []
        for _ in 0..<3 {
            try png.withUnsafeBytes { bytes in
                let reader = try PNGRowReader(bytes: bytes, maxPixels: 1 << 22, maxInterlacedBytes: 1 << 24)
                let before = try #require(Self.virtualSize())
                let error = #expect(throws: PNGError.self) { try reader.finish() }
                if case .corrupt(let message)? = error {
                    #expect(message.contains("truncated"), "\(message)")
                } else {
                    Issue.record("expected a corrupt PNG, got \(String(describing: error))")
                }
                growth.append(try #require(Self.virtualSize()) - before)
                withExtendedLifetime(reader) {}
            }
        }
        #expect(growth.min()! < 256 << 20, "virtual size grew by \(growth.map { $0 >> 20 }) MiB decoding a \(png.count)-byte PNG")
    }

    /// The chunks now skipped never changed the RGBA rows (no gamma, background or shift transform
    /// is set): a PNG with each of them, garbage or not, decodes to the same pixels as without.
    @Test("ancillary chunks do not change the pixels")
    func ancillaryChunksIgnored() throws {
        let rows: [[UInt8]] = [[0, 1, 2, 3], [4, 5, 6, 7]]
        var palette: [UInt8] = []
        for i in 0..<8 { palette += [UInt8(i * 30), UInt8(255 - i * 30), 7] }
        let plain = PNGBytes.make(
            width: 4, height: 2, bitDepth: 8, colorType: 3, rows: rows, palette: palette,
            transparency: [0, 128])
        let expected = try PNGDecoder.decode(plain)
        let extra: [(String, [UInt8])] = [
            ("gAMA", PNGBytes.bigEndian(10_000)), ("sRGB", [9]), ("iCCP", Array("x\0\0garbage".utf8)),
            ("cHRM", [UInt8](repeating: 0xFF, count: 32)), ("sBIT", [1, 1, 1]), ("bKGD", [200]),
            ("pHYs", [1, 2, 3]), ("tEXt", Array("Title\0tile".utf8)), ("zTXt", Array("k\0\0not zlib".utf8)),
            ("pCAL", [0xFF]), ("sCAL", [1, 0]), ("sPLT", [0]), ("eXIf", [1, 2]), ("hIST", [0])
        ]
        let ihdrEnd = 8 + 25
        let withChunks = Array(plain[..<ihdrEnd]) + extra.flatMap { PNGBytes.chunk($0.0, $0.1) } + plain[ihdrEnd...]
        let decoded = try PNGDecoder.decode(withChunks)
        #expect(decoded.width == expected.width && decoded.height == expected.height)
        #expect(decoded.pixels == expected.pixels)
    }
}
