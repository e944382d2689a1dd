import TrailMapTestSupport
import CPNG
import Foundation
import Testing
@testable import Raster

@Suite("PNG codec: encoding, colour reduction, decoding", .computeThreads)
struct PNGCodecTests {
    /// Encodes, decodes, checks the round trip is exact and returns the encoded bytes.
    @discardableResult
    func roundTrip(_ image: RGBAImage, _ options: PNGEncodingOptions = .default) throws -> [UInt8] {
        let png = try PNGEncoder.encode(image, options: options)
        #expect(Array(png.prefix(8)) == PNGBytes.signature)
        let decoded = try PNGDecoder.decode(png)
        #expect(decoded == image)
        return png
    }

    @Test func uniformTileIsOneBitPalette() throws {
        let png = try roundTrip(PNGFixtures.uniform())
        #expect(PNGBytes.colorType(png) == 3)
        #expect(PNGBytes.bitDepth(png) == 1)
        #expect(!PNGBytes.chunks(png).contains { $0.type == "tRNS" })
        #expect(png.count < 200)
    }

    @Test func fewColorsWithAlphaIsPaletteWithShortTRNS() throws {
        let png = try roundTrip(PNGFixtures.fewColorsWithAlpha())
        #expect(PNGBytes.colorType(png) == 3)
        #expect(PNGBytes.bitDepth(png) == 4)
        let chunks = PNGBytes.chunks(png)
        #expect(chunks.first { $0.type == "PLTE" }?.length == 15)
        // Three translucent colours first (two transparent, one half), so tRNS holds 3 entries.
        #expect(chunks.first { $0.type == "tRNS" }?.length == 3)
    }

    @Test func grayIsEightBitGray() throws {
        let png = try roundTrip(PNGFixtures.gray())
        #expect(PNGBytes.colorType(png) == 0)
        #expect(PNGBytes.bitDepth(png) == 8)
    }

    @Test func grayWithAlphaIsGrayAlpha() throws {
        let png = try roundTrip(PNGFixtures.grayAlpha())
        #expect(PNGBytes.colorType(png) == 4)
    }

    @Test func opaquePhotoIsRGB() throws {
        let png = try roundTrip(PNGFixtures.photo())
        #expect(PNGBytes.colorType(png) == 2)
        #expect(PNGBytes.bitDepth(png) == 8)
    }

    @Test func variedAlphaIsRGBA() throws {
        let png = try roundTrip(PNGFixtures.rgbaVaried())
        #expect(PNGBytes.colorType(png) == 6)
    }

    @Test func paletteIsSmallerThanForcedRGBA() throws {
        let image = PNGFixtures.fewColorsWithAlpha()
        let palette = try roundTrip(image)
        let forced = try roundTrip(image, PNGEncodingOptions(allowPalette: false, reduceChannels: false))
        #expect(PNGBytes.colorType(forced) == 6)
        #expect(palette.count < forced.count)
        let plain = try roundTrip(image, .rgba)
        #expect(PNGBytes.colorType(plain) == 6)
    }

    @Test func withoutPaletteFewOpaqueColorsAreRGB() throws {
        var image = PNGFixtures.fewColorsWithAlpha()
        for i in stride(from: 3, to: image.pixels.count, by: 4) { image.pixels[i] = 255 }
        let png = try roundTrip(image, PNGEncodingOptions(allowPalette: false))
        #expect(PNGBytes.colorType(png) == 2)
    }

    @Test func grayWithFewLevelsIsLowDepthPalette() throws {
        var image = RGBAImage(width: 64, height: 64)
        for i in 0..<(64 * 64) {
            let v: UInt8 = i % 3 == 0 ? 0 : (i % 3 == 1 ? 128 : 255)
            image.pixels.replaceSubrange(i * 4..<i * 4 + 4, with: [v, v, v, 255])
        }
        // One setting per tile: the palette comes first.
        let fast = try roundTrip(image, PNGEncodingOptions(effort: .fast))
        #expect(PNGBytes.colorType(fast) == 3)
        #expect(PNGBytes.bitDepth(fast) == 2)
        // The search may prefer 8-bit gray with filters; never a larger file.
        let best = try roundTrip(image)
        #expect([0, 3].contains(PNGBytes.colorType(best)))
        #expect(best.count <= fast.count)
    }

    /// An opaque gray image's palette wins only at 4 bits or fewer: 16 levels are a 4-bit
    /// palette, 17 (where the palette analysis is skipped) 8-bit gray, both exact.
    @Test func grayLevelsAroundSixteenChooseThePaletteOrGray() throws {
        for (levels, colorType, depth) in [(16, 3, 4), (17, 0, 8), (200, 0, 8)] {
            var image = RGBAImage(width: 40, height: 30)
            for i in 0..<(40 * 30) {
                let v = UInt8((i % levels) * 255 / max(1, levels - 1))
                image.pixels.replaceSubrange(i * 4..<i * 4 + 4, with: [v, v, v, 255])
            }
            #expect(PNGLayout.hasFewGrayLevels(image, atMost: 16) == (levels <= 16))
            let png = try roundTrip(image, PNGEncodingOptions(effort: .fast))
            #expect(PNGBytes.colorType(png) == colorType, "\(levels) levels")
            #expect(PNGBytes.bitDepth(png) == depth, "\(levels) levels")
        }
    }

    @Test(arguments: [(1, 1), (3, 1), (13, 7), (17, 33), (255, 3), (1, 300)])
    func oddSizesRoundTripAtEveryDepth(width: Int, height: Int) throws {
        for colorCount in [1, 2, 3, 4, 5, 16, 17, 256, 300] {
            var image = RGBAImage(width: width, height: height)
            for i in 0..<(width * height) {
                let c = (i * 7) % colorCount
                image.pixels.replaceSubrange(
                    i * 4..<i * 4 + 4,
                    with: [UInt8(c & 0xFF), UInt8(c >> 8), UInt8((c * 3) & 0xFF), c % 2 == 0 ? 255 : 77])
            }
            try roundTrip(image)
            try roundTrip(image, PNGEncodingOptions(compressionLevel: 0, effort: .fast))
        }
    }

    @Test func everyOptionCombinationRoundTrips() throws {
        let images = [
            PNGFixtures.uniform(16), PNGFixtures.fewColorsWithAlpha(width: 40, height: 30),
            PNGFixtures.gray(width: 40, height: 30), PNGFixtures.grayAlpha(width: 40, height: 30),
            PNGFixtures.photo(width: 40, height: 30), PNGFixtures.rgbaVaried(width: 40, height: 30)
        ]
        for image in images {
            for palette in [false, true] {
                for reduce in [false, true] {
                    for effort in [PNGEncodingOptions.Effort.fast, .best] {
                        try roundTrip(
                            image,
                            PNGEncodingOptions(
                                compressionLevel: 6, allowPalette: palette, reduceChannels: reduce, effort: effort))
                    }
                }
            }
        }
    }

    @Test func invalidEncodingInputsThrow() {
        #expect(throws: PNGError.self) { try PNGEncoder.encode(RGBAImage(width: 0, height: 5)) }
        let error = #expect(throws: PNGError.self) {
            try PNGEncoder.encode(PNGFixtures.uniform(4), options: PNGEncodingOptions(compressionLevel: 13))
        }
        if case .encodeFailed(let message)? = error {
            #expect(message.contains("0...12"))
        } else {
            Issue.record("expected .encodeFailed, got \(String(describing: error))")
        }
    }

    @Test func decodesFromDataAndFile() throws {
        let image = PNGFixtures.photo(width: 50, height: 40)
        let png = try PNGEncoder.encode(image)
        #expect(try PNGDecoder.decode(Data(png)) == image)
        let directory = try TemporaryDirectory()
        let path = try directory.write(png, to: "photo.png")
        #expect(try PNGDecoder.decode(contentsOf: path) == image)
    }

    @Test func decoderConvertsEveryColorTypeToRGBA8() throws {
        func check(_ png: [UInt8], _ expected: [[UInt8]]) throws {
            let decoded = try PNGDecoder.decode(png)
            #expect(decoded.width == expected.count && decoded.height == 1)
            #expect(decoded.pixels == expected.flatMap { $0 })
        }
        // 16-bit gray: v * 257 scales exactly to v.
        try check(
            PNGBytes.make(
                width: 3, height: 1, bitDepth: 16, colorType: 0,
                rows: [[0, 0, 0x80, 0x80, 0xFF, 0xFF]]),
            [[0, 0, 0, 255], [128, 128, 128, 255], [255, 255, 255, 255]])
        // 2-bit gray: 0, 1, 2, 3, 1 -> 0, 85, 170, 255, 85.
        try check(
            PNGBytes.make(width: 5, height: 1, bitDepth: 2, colorType: 0, rows: [[0b0001_1011, 0b0100_0000]]),
            [[0, 0, 0, 255], [85, 85, 85, 255], [170, 170, 170, 255], [255, 255, 255, 255], [85, 85, 85, 255]])
        // 8-bit gray with tRNS gray value 7.
        try check(
            PNGBytes.make(width: 2, height: 1, bitDepth: 8, colorType: 0, rows: [[7, 8]], transparency: [0, 7]),
            [[7, 7, 7, 0], [8, 8, 8, 255]])
        // RGB with tRNS colour (1, 2, 3).
        try check(
            PNGBytes.make(
                width: 2, height: 1, bitDepth: 8, colorType: 2, rows: [[1, 2, 3, 1, 2, 4]],
                transparency: [0, 1, 0, 2, 0, 3]),
            [[1, 2, 3, 0], [1, 2, 4, 255]])
        // 16-bit gray + alpha and 16-bit RGBA.
        try check(
            PNGBytes.make(width: 1, height: 1, bitDepth: 16, colorType: 4, rows: [[9, 9, 200, 200]]),
            [[9, 9, 9, 200]])
        try check(
            PNGBytes.make(width: 1, height: 1, bitDepth: 16, colorType: 6, rows: [[1, 1, 2, 2, 3, 3, 4, 4]]),
            [[1, 2, 3, 4]])
        // 4-bit palette with a tRNS shorter than the palette.
        try check(
            PNGBytes.make(
                width: 3, height: 1, bitDepth: 4, colorType: 3, rows: [[0x01, 0x20]],
                palette: [10, 11, 12, 20, 21, 22, 30, 31, 32], transparency: [5]),
            [[10, 11, 12, 5], [20, 21, 22, 255], [30, 31, 32, 255]])
    }

    @Test func errorsHaveReadableDescriptions() {
        #expect(PNGError.notPNG.description == "not a PNG file")
        #expect(PNGError.tooLarge(width: 3, height: 4).description.contains("3×4"))
        #expect(PNGError.corrupt("IDAT: CRC error").description.contains("IDAT: CRC error"))
    }
}
