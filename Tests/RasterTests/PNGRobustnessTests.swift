import TrailMapTestSupport
import Foundation
import Testing
@testable import Raster

/// Bad input must throw the right `PNGError`, never crash.
@Suite("PNG codec: bad input", .computeThreads)
struct PNGRobustnessTests {
    let valid: [UInt8]
    let image: RGBAImage

    init() throws {
        image = PNGFixtures.photo(width: 64, height: 48)
        valid = try PNGEncoder.encode(image, options: PNGEncodingOptions(effort: .fast))
    }

    func corruptMessage(_ error: PNGError?) -> String? {
        if case .corrupt(let message)? = error { return message }
        return nil
    }

    func idat(_ png: [UInt8]) throws -> (offset: Int, length: Int) {
        let chunk = try #require(PNGBytes.chunks(png).first { $0.type == "IDAT" })
        return (chunk.offset, chunk.length)
    }

    /// A PNG declaring 1_000_000 × 1_000_000 pixels, with valid CRCs.
    static func hugePNG() -> [UInt8] {
        PNGBytes.signature + PNGBytes.ihdr(width: 1_000_000, height: 1_000_000, bitDepth: 8, colorType: 6)
            + PNGBytes.chunk("IDAT", PNGBytes.zlibStored([0, 0, 0, 0, 0])) + PNGBytes.chunk("IEND", [])
    }

    @Test func emptyBytes() {
        #expect(throws: PNGError.empty) { try PNGDecoder.decode([UInt8]()) }
        #expect(throws: PNGError.empty) { try PNGDecoder.decode(Data()) }
    }

    @Test func randomBytesAreNotPNG() {
        var rng = SplitMix64(seed: 7)
        let bytes = (0..<1000).map { _ in UInt8.random(in: 0...255, using: &rng) }
        #expect(throws: PNGError.notPNG) { try PNGDecoder.decode(bytes) }
        #expect(throws: PNGError.notPNG) { try PNGDecoder.decode(Array("hello".utf8)) }
    }

    @Test func truncatedPNGsAreCorrupt() {
        let lengths = [1, 4, 7, 8, 20, 33, 40, valid.count / 2, valid.count - 13, valid.count - 12, valid.count - 1]
        for length in lengths {
            let error = #expect(throws: PNGError.self, "truncated at \(length)") {
                try PNGDecoder.decode(Array(valid.prefix(length)))
            }
            let message = corruptMessage(error)
            #expect(message != nil, "truncated at \(length): \(String(describing: error))")
            if length >= 8 && length < valid.count - 12 {
                #expect(
                    message?.contains("truncated") == true || message?.contains("Not enough") == true,
                    "truncated at \(length): \(message ?? "")")
            }
        }
    }

    @Test func flippedCRCByteInIDAT() throws {
        let (offset, length) = try idat(valid)
        var bad = valid
        bad[offset + 8 + length] ^= 0x55 // first CRC byte
        let error = #expect(throws: PNGError.self) { try PNGDecoder.decode(bad) }
        #expect(corruptMessage(error)?.contains("CRC") == true, "\(String(describing: error))")
    }

    @Test func flippedDataByteInIDAT() throws {
        let (offset, length) = try idat(valid)
        for position in [offset + 8, offset + 8 + length / 2, offset + 8 + length - 1] {
            var bad = valid
            bad[position] ^= 0xFF
            let error = #expect(throws: PNGError.self) { try PNGDecoder.decode(bad) }
            #expect(corruptMessage(error) != nil, "\(String(describing: error))")
        }
    }

    @Test func flippedIHDRByte() {
        var bad = valid
        bad[17] ^= 0x01 // width, CRC no longer matches
        let error = #expect(throws: PNGError.self) { try PNGDecoder.decode(bad) }
        #expect(corruptMessage(error)?.contains("CRC") == true, "\(String(describing: error))")
    }

    @Test func hugeDimensionsAreTooLarge() throws {
        let huge = Self.hugePNG()
        #expect(throws: PNGError.tooLarge(width: 1_000_000, height: 1_000_000)) { try PNGDecoder.decode(huge) }
        let directory = try TemporaryDirectory()
        let path = try directory.write(huge, to: "huge.png")
        #expect(throws: PNGError.tooLarge(width: 1_000_000, height: 1_000_000)) {
            try PNGRowReader(path: path)
        }
        #expect(throws: PNGError.tooLarge(width: 64, height: 48)) { try PNGDecoder.decode(valid, maxPixels: 1000) }
    }

    /// A few dozen bytes declaring 100,000,000 × 1 RGBA pixels: refused at open, from the chunk
    /// headers, rather than found short after the builder allocated the rows (858 MB; 16.8 GB for
    /// a width of 2³¹ − 1).
    @Test func aHeaderDeclaringMoreThanItsDataCanHoldIsCorruptAtOpen() throws {
        let png =
            PNGBytes.signature + PNGBytes.ihdr(width: 100_000_000, height: 1, bitDepth: 8, colorType: 6)
            + PNGBytes.chunk("IDAT", PNGBytes.zlibStored([0, 1, 2, 3, 4])) + PNGBytes.chunk("IEND", [])
        let directory = try TemporaryDirectory()
        let path = try directory.write(png, to: "bomb.png")
        let error = #expect(throws: PNGError.self) { try PNGRowReader(path: path) }
        #expect(corruptMessage(error)?.contains("cannot hold the 100000000×1 pixels") == true, "\(String(describing: error))")
        // A file whose data can hold its rows opens.
        let fine = try directory.write(valid, to: "fine.png")
        #expect(try PNGRowReader(path: fine).width == 64)
    }

    @Test func zeroWidthIsCorrupt() {
        let png =
            PNGBytes.signature + PNGBytes.ihdr(width: 0, height: 5, bitDepth: 8, colorType: 6)
            + PNGBytes.chunk("IEND", [])
        let error = #expect(throws: PNGError.self) { try PNGDecoder.decode(png) }
        #expect(corruptMessage(error) != nil)
    }

    @Test func rowReaderFileErrors() throws {
        let directory = try TemporaryDirectory()
        let missing = #expect(throws: PNGError.self) { try PNGRowReader(path: directory.path("missing.png")) }
        if case .io(let message)? = missing {
            #expect(message.contains("No such file"))
        } else {
            Issue.record("expected .io, got \(String(describing: missing))")
        }
        #expect(throws: PNGError.self) { try PNGDecoder.decode(contentsOf: directory.path("missing.png")) }
        let empty = try directory.write([], to: "empty.png")
        #expect(throws: PNGError.empty) { try PNGRowReader(path: empty) }
        let text = try directory.write(Array("not a png at all".utf8), to: "text.png")
        #expect(throws: PNGError.notPNG) { try PNGRowReader(path: text) }
        let folder = #expect(throws: PNGError.self) { try PNGRowReader(path: directory.url.path) }
        if case .io? = folder {} else { Issue.record("expected .io for a directory, got \(String(describing: folder))") }
    }

    @Test func rowReaderTruncatedFileThrowsWhileReadingOrAtFinish() throws {
        let directory = try TemporaryDirectory()
        for length in [valid.count / 2, valid.count - 12, valid.count - 4] {
            let path = try directory.write(Array(valid.prefix(length)), to: "cut\(length).png")
            let reader = try PNGRowReader(path: path)
            var row = [UInt8](repeating: 0, count: reader.width * 4)
            let error = #expect(throws: PNGError.self, "cut at \(length)") {
                for _ in 0..<reader.height {
                    try row.withUnsafeMutableBufferPointer { try reader.readRow(into: $0) }
                }
                try reader.finish()
            }
            #expect(corruptMessage(error)?.contains("truncated") == true, "\(String(describing: error))")
            // A failed reader keeps failing with the same error.
            let again = #expect(throws: PNGError.self) { try reader.finish() }
            #expect(again == error)
        }
    }

    @Test func randomMutationsNeverCrash() throws {
        let small = try PNGEncoder.encode(PNGFixtures.rgbaVaried(width: 24, height: 16))
        let palette = try PNGEncoder.encode(PNGFixtures.fewColorsWithAlpha(width: 24, height: 16))
        var rng = SplitMix64(seed: 42)
        var decoded = 0, failed = 0
        for iteration in 0..<2000 {
            var bytes = iteration % 2 == 0 ? small : palette
            switch Int.random(in: 0..<4, using: &rng) {
            case 0:
                bytes = Array(bytes.prefix(Int.random(in: 0..<bytes.count, using: &rng)))
            case 1:
                for _ in 0..<Int.random(in: 1...4, using: &rng) {
                    bytes[Int.random(in: 0..<bytes.count, using: &rng)] ^= UInt8.random(in: 1...255, using: &rng)
                }
            case 2:
                // Flip a byte after the signature, skipping the CRC check's protection by
                // also mutating the tail.
                let i = Int.random(in: 8..<bytes.count, using: &rng)
                bytes[i] = UInt8.random(in: 0...255, using: &rng)
                bytes = Array(bytes.prefix(Int.random(in: i..<bytes.count, using: &rng) + 1))
            default:
                let i = Int.random(in: 0..<bytes.count, using: &rng)
                bytes.insert(
                    contentsOf: (0..<Int.random(in: 1...20, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }, at: i)
            }
            do throws(PNGError) {
                let image = try PNGDecoder.decode(bytes, maxPixels: 1 << 20)
                #expect(image.pixels.count == image.width * image.height * 4)
                decoded += 1
            } catch {
                failed += 1
            }
        }
        #expect(decoded + failed == 2000)
        #expect(failed > 1000)
    }
}
