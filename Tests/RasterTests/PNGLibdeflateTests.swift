import TrailMapTestSupport
import CPNG
import Foundation
import Testing
@testable import Raster

/// The libdeflate path: rows filtered by the shim, IDAT compressed by libdeflate, chunks written
/// by libpng; every output must decode (through libpng) to exactly the input.
@Suite("PNG encoder: libdeflate path", .computeThreads)
struct PNGLibdeflateTests {
    /// Every filter choice the shim knows: the five PNG filters and both per-row heuristics.
    static let choices: [Int32] = [
        CPNG_CHOICE_NONE, CPNG_CHOICE_SUB, CPNG_CHOICE_UP, CPNG_CHOICE_AVG, CPNG_CHOICE_PAETH,
        CPNG_CHOICE_MINSUM, CPNG_CHOICE_ENTROPY
    ]

    /// An image with `colorCount` distinct colours (opaque or not, gray or not).
    static func image(width: Int, height: Int, colorCount: Int, opaque: Bool, gray: Bool) -> RGBAImage {
        var pixels: [UInt8] = []
        pixels.reserveCapacity(width * height * 4)
        for i in 0..<(width * height) {
            let c = (i * 7 + i / width) % colorCount
            let v = UInt8(truncatingIfNeeded: c * 37 + c / 256)
            let alpha: UInt8 = opaque ? 255 : UInt8(truncatingIfNeeded: c % 3 == 0 ? 0 : 60 + c)
            pixels += gray ? [v, v, v, alpha] : [v, UInt8(truncatingIfNeeded: c * 11), UInt8(truncatingIfNeeded: c >> 1), alpha]
        }
        return RGBAImage(width: width, height: height, pixels: pixels)
    }

    /// Every layout `PNGEncoder` may produce for an image: palette (when possible), reduced
    /// truecolour and plain RGBA.
    static func layouts(_ image: RGBAImage) -> [PNGLayout] {
        let (opaque, gray) = PNGLayout.channelInfo(image)
        var layouts = [PNGLayout.truecolor(image, opaque: opaque, gray: gray), PNGLayout.rgba(image)]
        if let palette = PNGPalette.analyze(image) {
            layouts.append(PNGLayout.palette(palette, width: image.width, height: image.height))
        }
        return layouts
    }

    @Test(arguments: [(1, 1), (2, 1), (3, 5), (13, 7), (17, 33), (255, 3), (1, 40)])
    func everyLayoutAndFilterChoiceRoundTrips(width: Int, height: Int) throws {
        var seen = Set<String>()
        for colorCount in [1, 2, 3, 4, 5, 16, 17, 256, 300] {
            for (opaque, gray) in [(true, true), (true, false), (false, true), (false, false)] {
                let image = Self.image(width: width, height: height, colorCount: colorCount, opaque: opaque, gray: gray)
                for layout in Self.layouts(image) {
                    seen.insert("\(layout.colorType)/\(layout.bitDepth)")
                    for choice in Self.choices {
                        let png = try layout.encode(
                            .libdeflate(
                                level: 6, filters: CPNG_ALL_FILTERS, choice: choice, searchLevel: 0))
                        #expect(PNGBytes.colorType(png) == UInt8(layout.colorType))
                        #expect(
                            try PNGDecoder.decode(png) == image,
                            "\(width)×\(height) \(layout.colorType)/\(layout.bitDepth) choice \(choice)")
                    }
                    let ranked = try layout.rankFilters(filters: CPNG_ALL_FILTERS, searchLevel: 1)
                    #expect(Self.choices.contains(ranked.choice))
                    #expect(ranked.score > 0)
                }
            }
        }
        // Gray, RGB, palette at 1/2/4/8 bits, gray+alpha and RGBA were all exercised.
        if width * height >= 300 {
            #expect(seen.isSuperset(of: ["0/8", "2/8", "3/1", "3/2", "3/4", "3/8", "4/8", "6/8"]))
        }
    }

    @Test func everyLevelAndEffortRoundTrips() throws {
        let images = [
            PNGFixtures.uniform(16), PNGFixtures.fewColorsWithAlpha(width: 40, height: 30),
            PNGFixtures.gray(width: 40, height: 30), PNGFixtures.grayAlpha(width: 40, height: 30),
            PNGFixtures.photo(width: 70, height: 90), PNGFixtures.rgbaVaried(width: 40, height: 30)
        ]
        for image in images {
            for level in [0, 1, 6, 9, 12] {
                for effort in [PNGEncodingOptions.Effort.fast, .best] {
                    for (palette, reduce) in [(true, true), (false, true), (false, false)] {
                        let options = PNGEncodingOptions(
                            compressionLevel: level, allowPalette: palette, reduceChannels: reduce, effort: effort)
                        let png = try PNGEncoder.encode(image, options: options)
                        #expect(try PNGDecoder.decode(png) == image)
                        let types = PNGBytes.chunks(png).map(\.type)
                        #expect(types.first == "IHDR" && types.last == "IEND" && types.contains("IDAT"))
                    }
                }
            }
        }
    }

    @Test func levelsAreCheckedPerDeflater() {
        for (deflater, level, range) in [(PNGEncodingOptions.Deflater.libdeflate, 13, "0...12"), (.zlib, 10, "0...9")] {
            let error = #expect(throws: PNGError.self) {
                try PNGEncoder.encode(PNGFixtures.uniform(4), options: PNGEncodingOptions(deflater: deflater, compressionLevel: level))
            }
            if case .encodeFailed(let message)? = error {
                #expect(message.contains(range) && message.contains("\(deflater)"))
            } else {
                Issue.record("expected .encodeFailed, got \(String(describing: error))")
            }
        }
        #expect(throws: PNGError.self) {
            try PNGLayout.rgba(PNGFixtures.uniform(4)).encode(.libdeflate(level: 6, filters: CPNG_ALL_FILTERS, choice: 7, searchLevel: 0))
        }
        #expect(throws: PNGError.self) {
            try PNGLayout.rgba(PNGFixtures.uniform(4)).rankFilters(filters: CPNG_ALL_FILTERS, searchLevel: 0)
        }
    }

    /// 256×256 tiles cut from the bundled Natural Earth source, as read and as upsampled 3x
    /// (blocky, like the high zooms of a build).
    static func realTiles() throws -> [RGBAImage] {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let world = try PNGDecoder.decode(contentsOf: root.appendingPathComponent("Tiles/sources/world.png").path)
        func crop(x0: Int, y0: Int, scale: Int) -> RGBAImage {
            var pixels = [UInt8](repeating: 0, count: 256 * 256 * 4)
            for y in 0..<256 {
                for x in 0..<256 {
                    let sx = min(x0 + x / scale, world.width - 1), sy = min(y0 + y / scale, world.height - 1)
                    for c in 0..<4 { pixels[(y * 256 + x) * 4 + c] = world.pixels[(sy * world.width + sx) * 4 + c] }
                }
            }
            return RGBAImage(width: 256, height: 256, pixels: pixels)
        }
        return [
            crop(x0: 100, y0: 60, scale: 1), crop(x0: 400, y0: 100, scale: 1),
            crop(x0: 150, y0: 90, scale: 3), crop(x0: 520, y0: 60, scale: 3), crop(x0: 0, y0: 0, scale: 3)
        ]
    }

    @Test func notLargerThanTheOldZlib6PathOnRealTiles() throws {
        let old = PNGEncodingOptions(deflater: .zlib, compressionLevel: 6, effort: .fast)
        var (oldTotal, newTotal) = (0, 0)
        for tile in try Self.realTiles() {
            let before = try PNGEncoder.encode(tile, options: old)
            let after = try PNGEncoder.encode(tile, options: .default)
            #expect(try PNGDecoder.decode(after) == tile)
            #expect(after.count <= before.count, "libdeflate \(after.count) B vs zlib 6 \(before.count) B")
            oldTotal += before.count
            newTotal += after.count
        }
        #expect(newTotal < oldTotal)
    }
    /// 256×256 tiles bilinearly upsampled 8x from the bundled Natural Earth source: smooth ramps,
    /// like the benchmark's source and the middle zooms of a build.
    static func smoothTiles() throws -> [RGBAImage] {
        let world = try realTiles()[1]
        return [(0, 0), (96, 40), (40, 100), (150, 60)].map { (x0, y0) in
            var pixels = [UInt8](repeating: 0, count: 256 * 256 * 4)
            for y in 0..<256 {
                let fy = Double(y0) + Double(y) / 8, iy = min(Int(fy), 254), ty = fy - Double(iy)
                for x in 0..<256 {
                    let fx = Double(x0) + Double(x) / 8, ix = min(Int(fx), 254), tx = fx - Double(ix)
                    for c in 0..<3 {
                        func at(_ x: Int, _ y: Int) -> Double { Double(world.pixels[(y * 256 + x) * 4 + c]) }
                        let top = at(ix, iy) * (1 - tx) + at(ix + 1, iy) * tx
                        let bottom = at(ix, iy + 1) * (1 - tx) + at(ix + 1, iy + 1) * tx
                        pixels[(y * 256 + x) * 4 + c] = UInt8((top * (1 - ty) + bottom * ty).rounded())
                    }
                    pixels[(y * 256 + x) * 4 + 3] = 255
                }
            }
            return RGBAImage(width: 256, height: 256, pixels: pixels)
        }
    }

    /// The default (`.fast`) truecolour encoding picks each row's filter by least entropy, which
    /// compresses smooth tiles smaller than libpng's least-sum heuristic at the same level.
    @Test func perRowEntropyBeatsLeastSumOnSmoothTiles() throws {
        let options = PNGEncodingOptions(compressionLevel: 8, effort: .fast)
        var (leastSum, entropy) = (0, 0)
        for tile in try Self.smoothTiles() {
            let layouts = PNGEncoder.candidates(tile, options: options)
            try #require(layouts.count == 1 && layouts[0].colorType == CPNG_COLOR_RGB)
            let png = try PNGEncoder.encode(tile, options: options)
            #expect(try PNGDecoder.decode(png) == tile)
            entropy += png.count
            leastSum += try layouts[0].encode(
                .libdeflate(
                    level: 8, filters: CPNG_ALL_FILTERS, choice: CPNG_CHOICE_MINSUM, searchLevel: 0)
            ).count
        }
        #expect(entropy < leastSum, "entropy \(entropy) B vs least sum \(leastSum) B")
    }
}
