import TrailMapTestSupport
import Foundation
import Testing
@testable import Raster

@Suite("PNG row reader", .computeThreads)
struct PNGRowReaderTests {
    func readAllRows(_ reader: PNGRowReader) throws -> [UInt8] {
        var pixels = [UInt8](repeating: 0, count: reader.width * reader.height * 4)
        var row = [UInt8](repeating: 0, count: reader.width * 4)
        for y in 0..<reader.height {
            try row.withUnsafeMutableBufferPointer { try reader.readRow(into: $0) }
            pixels.replaceSubrange(y * reader.width * 4..<(y + 1) * reader.width * 4, with: row)
        }
        try reader.finish()
        return pixels
    }

    @Test(arguments: [false, true])
    func rowsMatchTheDecoder(interlaced: Bool) throws {
        let directory = try TemporaryDirectory()
        for image in [
            PNGFixtures.photo(width: 301, height: 173), PNGFixtures.fewColorsWithAlpha(width: 77, height: 9),
            PNGFixtures.gray(width: 5, height: 300), PNGFixtures.rgbaVaried(width: 130, height: 70)
        ] {
            var options = PNGEncodingOptions.default
            options.interlaced = interlaced
            let png = try PNGEncoder.encode(image, options: options)
            #expect(PNGBytes.interlace(png) == (interlaced ? 1 : 0))
            let path = try directory.write(png, to: "image.png")
            #expect(try PNGDecoder.decode(png) == image)
            #expect(try PNGDecoder.decode(contentsOf: path) == image)
            let reader = try PNGRowReader(path: path)
            #expect(reader.width == image.width && reader.height == image.height)
            #expect(reader.isInterlaced == interlaced)
            #expect(try readAllRows(reader) == image.pixels)
            #expect(reader.rowsRead == image.height)
        }
    }

    @Test func readRowsInBatchesWithStride() throws {
        let image = PNGFixtures.rgbaVaried(width: 40, height: 30)
        let directory = try TemporaryDirectory()
        let path = try directory.write(try PNGEncoder.encode(image), to: "batch.png")
        let reader = try PNGRowReader(path: path)
        let stride = 40 * 4 + 16
        var buffer = [UInt8](repeating: 0, count: stride * 30)
        try buffer.withUnsafeMutableBufferPointer { buffer in
            try reader.readRows(into: buffer, count: 10, stride: stride)
            try reader.readRows(into: UnsafeMutableBufferPointer(rebasing: buffer[(stride * 10)...]), count: 20, stride: stride)
        }
        try reader.finish()
        for y in 0..<30 {
            #expect(Array(buffer[y * stride..<y * stride + 160]) == Array(image.pixels[y * 160..<(y + 1) * 160]))
        }
    }

    @Test func finishSkipsUnreadRowsAndStillChecksTheTail() throws {
        let image = PNGFixtures.photo(width: 64, height: 64)
        let png = try PNGEncoder.encode(image)
        let directory = try TemporaryDirectory()
        let good = try PNGRowReader(path: try directory.write(png, to: "good.png"))
        var row = [UInt8](repeating: 0, count: 64 * 4)
        try row.withUnsafeMutableBufferPointer { try good.readRow(into: $0) }
        #expect(row == Array(image.pixels[0..<256]))
        try good.finish()
        try good.finish() // idempotent

        var badCRC = png
        let iend = try #require(PNGBytes.chunks(png).first { $0.type == "IEND" })
        badCRC[iend.offset + 8] ^= 0xFF
        let bad = try PNGRowReader(path: try directory.write(badCRC, to: "badcrc.png"))
        #expect(throws: PNGError.self) { try bad.finish() }
    }

    @Test func interlacedOverTheMemoryLimitIsTooLarge() throws {
        var options = PNGEncodingOptions.default
        options.interlaced = true
        let png = try PNGEncoder.encode(PNGFixtures.photo(width: 100, height: 50), options: options)
        let directory = try TemporaryDirectory()
        let path = try directory.write(png, to: "interlaced.png")
        #expect(throws: PNGError.tooLarge(width: 100, height: 50)) {
            try PNGRowReader(path: path, maxInterlacedBytes: 100 * 50 * 4 - 1)
        }
        let reader = try PNGRowReader(path: path, maxInterlacedBytes: 100 * 50 * 4)
        #expect(reader.isInterlaced)
    }

    @Test func largeSourceStreamsRowByRow() throws {
        // 4000 x 3000 RGB written through the encoder, read back row by row.
        let width = 4000, height = 3000
        var image = RGBAImage(width: width, height: height, fill: (0, 0, 0, 255))
        for y in 0..<height {
            for x in stride(from: 0, to: width, by: 1) where (x ^ y) & 63 == 0 {
                image.pixels[(y * width + x) * 4] = UInt8(truncatingIfNeeded: x)
                image.pixels[(y * width + x) * 4 + 1] = UInt8(truncatingIfNeeded: y)
            }
        }
        let directory = try TemporaryDirectory()
        let path = try directory.write(
            try PNGEncoder.encode(image, options: PNGEncodingOptions(compressionLevel: 1, effort: .fast)), to: "big.png")
        let reader = try PNGRowReader(path: path)
        var row = [UInt8](repeating: 0, count: width * 4)
        for y in 0..<height {
            try row.withUnsafeMutableBufferPointer { try reader.readRow(into: $0) }
            if y % 500 == 0 {
                #expect(row[...] == image.pixels[(y * width * 4)..<((y + 1) * width * 4)])
            }
        }
        try reader.finish()
    }
}
