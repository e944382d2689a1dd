import CPNG
import Testing
import TrailMapTestSupport
@testable import Raster

/// `PNGEncodingOptions.adaptiveLevels`: palettes at their own level, truecolour at the dense level
/// when its filtered rows carry more entropy per pixel than the threshold.
@Suite("PNG encoder: per-image libdeflate levels", .computeThreads)
struct PNGAdaptiveLevelTests {
    static let adaptive = PNGEncodingOptions.AdaptiveLevels(palette: 7, dense: 10, denseBitsPerPixel: 1.2)

    static func options(_ adaptive: PNGEncodingOptions.AdaptiveLevels?, level: Int = 8) -> PNGEncodingOptions {
        var options = PNGEncodingOptions(compressionLevel: level, effort: .fast)
        options.adaptiveLevels = adaptive
        return options
    }

    static func fixed(_ image: RGBAImage, level: Int) throws -> [UInt8] {
        try PNGEncoder.encode(image, options: options(nil, level: level))
    }

    /// 200 colours in short runs: a palette image whose size depends on the level.
    static func paletteImage() -> RGBAImage {
        var rng = SplitMix64(seed: 9)
        var pixels: [UInt8] = []
        for y in 0..<128 {
            for x in 0..<128 {
                let c = (x / 3 + (y / 2) * 7 + Int(rng.next() % 3)) % 200
                pixels += [UInt8(c), UInt8(255 - c), UInt8((c * 7) % 256), 255]
            }
        }
        return RGBAImage(width: 128, height: 128, pixels: pixels)
    }

    @Test func denseTruecolourTilesGetTheDenseLevel() throws {
        let tile = try PNGLibdeflateTests.realTiles()[0]
        try #require(PNGEncoder.candidates(tile, options: Self.options(Self.adaptive))[0].colorType == CPNG_COLOR_RGB)
        let png = try PNGEncoder.encode(tile, options: Self.options(Self.adaptive))
        #expect(try PNGDecoder.decode(png) == tile)
        let (level8, level10) = (try Self.fixed(tile, level: 8), try Self.fixed(tile, level: 10))
        #expect(png == level10)
        #expect(level10.count < level8.count)
        // Past the threshold nothing is dense: the base level.
        var never = Self.adaptive
        never.denseBitsPerPixel = 64
        #expect(try PNGEncoder.encode(tile, options: Self.options(never)) == level8)
    }

    /// Flat 8×8 blocks of 1,024 colours, like tiles overzoomed from a coarse source: truecolour,
    /// and most filtered bytes are zero.
    static func blockTiles() -> [RGBAImage] {
        [(8, 8), (5, 9), (3, 7)].map { (a, b) in
            var pixels: [UInt8] = []
            for y in 0..<256 {
                for x in 0..<256 {
                    let (bx, by) = (x / 8, y / 8)
                    pixels += [
                        UInt8(truncatingIfNeeded: bx * a), UInt8(truncatingIfNeeded: by * b),
                        UInt8(truncatingIfNeeded: (bx + by) * 4), 255
                    ]
                }
            }
            return RGBAImage(width: 256, height: 256, pixels: pixels)
        }
    }

    @Test func sparseTruecolourTilesKeepTheBaseLevel() throws {
        for tile in Self.blockTiles() {
            try #require(PNGEncoder.candidates(tile, options: Self.options(Self.adaptive))[0].colorType == CPNG_COLOR_RGB)
            let png = try PNGEncoder.encode(tile, options: Self.options(Self.adaptive))
            #expect(png == (try Self.fixed(tile, level: 8)))
            #expect(png != (try Self.fixed(tile, level: 10)))
            // A threshold of zero makes every truecolour tile dense.
            var always = Self.adaptive
            always.denseBitsPerPixel = 0
            #expect(try PNGEncoder.encode(tile, options: Self.options(always)) == (try Self.fixed(tile, level: 10)))
        }
    }

    @Test func palettesGetThePaletteLevel() throws {
        let image = Self.paletteImage()
        try #require(PNGEncoder.candidates(image, options: Self.options(Self.adaptive))[0].colorType == CPNG_COLOR_PALETTE)
        let (level1, level9) = (try Self.fixed(image, level: 1), try Self.fixed(image, level: 9))
        #expect(level1 != level9)
        for (paletteLevel, expected) in [(1, level1), (9, level9)] {
            var adaptive = Self.adaptive
            adaptive.palette = paletteLevel
            adaptive.denseBitsPerPixel = 0 // palettes are never "dense"
            let png = try PNGEncoder.encode(image, options: Self.options(adaptive))
            #expect(png == expected)
            #expect(try PNGDecoder.decode(png) == image)
        }
    }

    @Test func denseThresholdMustBeANonNegativeNumber() throws {
        let tile = PNGFixtures.photo(width: 32, height: 32)
        for threshold in [-1, .nan, .infinity, -.infinity] as [Double] {
            var adaptive = Self.adaptive
            adaptive.denseBitsPerPixel = threshold
            let error = #expect(throws: PNGError.self) { try PNGEncoder.encode(tile, options: Self.options(adaptive)) }
            if case .encodeFailed(let message)? = error {
                #expect(message.contains("dense threshold"), "\(message)")
            } else {
                Issue.record("expected .encodeFailed for \(threshold), got \(String(describing: error))")
            }
        }
        // A huge finite threshold is "never dense", not an overflow.
        var never = Self.adaptive
        never.denseBitsPerPixel = 1e300
        #expect(try PNGEncoder.encode(tile, options: Self.options(never)) == (try Self.fixed(tile, level: 8)))
    }

    @Test func levelsOutOfRangeAreErrors() {
        for (palette, dense, text) in [(13, 10, "0...12"), (7, 13, "dense level must be 0...12"), (7, -1, "dense level")] {
            let options = Self.options(.init(palette: palette, dense: dense, denseBitsPerPixel: 0))
            let error = #expect(throws: PNGError.self) {
                _ = try PNGEncoder.encode(PNGFixtures.photo(width: 32, height: 32), options: options)
                _ = try PNGEncoder.encode(Self.paletteImage(), options: options)
            }
            if case .encodeFailed(let message)? = error {
                #expect(message.contains(text), "\(message)")
            } else {
                Issue.record("expected .encodeFailed, got \(String(describing: error))")
            }
        }
    }
}
