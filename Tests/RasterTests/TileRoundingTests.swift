import CPNG
import TrailMapTestSupport
import Foundation
import Testing
@testable import Raster

/// `TileRounding.compact`: resampled values stored rounded up or down, whichever the PNG filter
/// predicts better, never more than one level from the value rounded to nearest.
@Suite("Tile rounding", .computeThreads)
struct TileRoundingTests {
    /// A smooth, noisy field of exact values in 0...255 (a resampled image before rounding).
    static func exactValues(width: Int, height: Int, channels: Int, seed: UInt64) -> [Float] {
        var rng = SplitMix64(seed: seed)
        var values = [Float](repeating: 0, count: width * height * channels)
        for y in 0..<height {
            for x in 0..<width {
                for c in 0..<channels {
                    let ramp = 60 + 0.4 * Float(x) + 0.25 * Float(y) + 20 * Float(c)
                    let noise = Float(rng.next() % 1000) / 1000 * 6
                    values[(y * width + x) * channels + c] = min(max(ramp + noise, 0), 255)
                }
            }
        }
        return values
    }

    /// An image of those values rounded to nearest, with their alternates; `alpha` per pixel.
    static func image(width: Int, height: Int, gray: Bool, alpha: (Int, Int) -> UInt8, seed: UInt64 = 7) -> RGBAImage {
        let exact = exactValues(width: width, height: height, channels: gray ? 1 : 3, seed: seed)
        var pixels = [UInt8](repeating: 0, count: width * height * 4), alternates = pixels
        for y in 0..<height {
            for x in 0..<width {
                let p = (y * width + x) * 4
                for c in 0..<3 {
                    let v = exact[(y * width + x) * (gray ? 1 : 3) + (gray ? 0 : c)]
                    (pixels[p + c], alternates[p + c]) = RoundingPair.split(v)
                }
                pixels[p + 3] = alpha(x, y)
                alternates[p + 3] = pixels[p + 3]
            }
        }
        return RGBAImage(width: width, height: height, pixels: pixels, roundingAlternates: alternates)
    }

    static let compact: PNGEncodingOptions = {
        var o = PNGEncodingOptions(compressionLevel: 7, effort: .fast)
        o.rounding = .compact
        return o
    }()

    /// Each decoded byte is the image's or its alternate; alpha is the image's.
    static func expectWithinAlternates(_ decoded: RGBAImage, _ image: RGBAImage, _ label: String) -> Int {
        let alternates = image.roundingAlternates!
        var changed = 0, outside = 0
        for i in 0..<image.pixels.count {
            let d = decoded.pixels[i]
            if d == image.pixels[i] { continue }
            if i % 4 == 3 || d != alternates[i] { outside += 1 } else { changed += 1 }
        }
        #expect(outside == 0, "\(label): \(outside) bytes are neither the pixel nor its alternate")
        return changed
    }

    @Test func splitRoundsToNearestAndNamesTheOtherNeighbour() {
        let cases: [(Float, UInt8, UInt8)] = [
            (3, 3, 3), (3.2, 3, 4), (3.7, 4, 3), (3.5, 4, 3), (0.3, 0, 1), (254.7, 255, 254), (255, 255, 255),
            (0, 0, 0), (-2, 0, 0), (300, 255, 255), (7.0004, 7, 7), (6.9997, 7, 7), (7.01, 7, 8)
        ]
        for (value, rounded, other) in cases {
            let got = RoundingPair.split(value)
            #expect(got.rounded == rounded && got.other == other, "\(value) → \(got), expected (\(rounded), \(other))")
        }
    }

    @Test func theOtherNeighbourOfAnIntegerMean() {
        // (sum, count) → nearest (halves up) and the other neighbour.
        let cases: [(Int, Int, UInt8, UInt8)] = [
            (7, 4, 2, 1), (5, 4, 1, 2), (6, 4, 2, 1), (8, 4, 2, 2), (1020, 4, 255, 255), (1019, 4, 255, 254)
        ]
        for (sum, count, rounded, other) in cases {
            #expect(UInt8((sum + count / 2) / count) == rounded)
            #expect(RoundingPair.other(sum: sum, count: count, rounded: rounded) == other, "\(sum)/\(count)")
        }
    }

    @Test(arguments: [(false, true), (false, false), (true, true), (true, false)])
    func compactStoresEachByteOrItsAlternateAndIsSmaller(gray: Bool, opaque: Bool) throws {
        let image = Self.image(
            width: 256, height: 256, gray: gray,
            alpha: { x, y in
                opaque ? 255 : (x + y < 40 ? 0 : x < 60 ? UInt8(4 * x) : 255)
            })
        let nearest = try PNGEncoder.encode(image, options: PNGEncodingOptions(compressionLevel: 7, effort: .fast))
        #expect(try PNGDecoder.decode(nearest) == image)
        let compact = try PNGEncoder.encode(image, options: Self.compact)
        let decoded = try PNGDecoder.decode(compact)
        let changed = Self.expectWithinAlternates(decoded, image, "gray \(gray) opaque \(opaque)")
        #expect(changed > image.pixels.count / 20, "only \(changed) bytes took their alternate")
        #expect(Double(compact.count) < 0.95 * Double(nearest.count), "compact \(compact.count) B, nearest \(nearest.count) B")
    }

    /// Every filter the shim writes, on every truecolour layout, and rows of a few bytes (the first
    /// pixel of a row has no left neighbour; the first row no previous one).
    @Test(arguments: [(1, 1), (2, 3), (5, 4), (17, 9), (64, 64)])
    func everyFilterChoiceDecodesWithinTheAlternates(width: Int, height: Int) throws {
        for (gray, opaque) in [(false, true), (false, false), (true, true), (true, false)] {
            let image = Self.image(width: width, height: height, gray: gray, alpha: { x, _ in opaque ? 255 : UInt8(100 + x % 100) })
            let (isOpaque, isGray) = PNGLayout.channelInfo(image)
            for layout in [PNGLayout.truecolor(image, opaque: isOpaque, gray: isGray), PNGLayout.rgba(image)] {
                let flexible = layout.withAlternates(of: image)
                #expect(flexible.alternates != nil)
                for choice in PNGLibdeflateTests.choices {
                    let png = try flexible.encode(.libdeflate(level: 6, filters: CPNG_ALL_FILTERS, choice: choice, searchLevel: 0))
                    _ = Self.expectWithinAlternates(
                        try PNGDecoder.decode(png), image, "\(width)×\(height) type \(layout.colorType) choice \(choice)")
                }
            }
        }
    }

    @Test func alternatesFartherThanOneLevelAreIgnored() throws {
        var image = Self.image(width: 64, height: 64, gray: false, alpha: { _, _ in 255 })
        image.roundingAlternates = image.pixels.map { $0 ^ 0x40 }
        #expect(try PNGDecoder.decode(PNGEncoder.encode(image, options: Self.compact)) == image)
    }

    @Test func nearestZlibPalettesAndInterlacingStoreThePixelsExactly() throws {
        let image = Self.image(width: 64, height: 64, gray: false, alpha: { _, _ in 255 })
        var nearest = Self.compact
        nearest.rounding = .nearest
        var zlib = Self.compact
        zlib.deflater = .zlib
        zlib.compressionLevel = 6
        var interlaced = Self.compact
        interlaced.interlaced = true
        for options in [nearest, zlib, interlaced] {
            #expect(try PNGDecoder.decode(PNGEncoder.encode(image, options: options)) == image)
        }
        // Few colours: a palette, whose indices have no neighbours to round to.
        var few = PNGFixtures.fewColorsWithAlpha(width: 64, height: 64)
        few.roundingAlternates = few.pixels.map { $0 == 255 ? 254 : $0 + 1 }
        let png = try PNGEncoder.encode(few, options: Self.compact)
        #expect(PNGBytes.colorType(png) == UInt8(CPNG_COLOR_PALETTE))
        #expect(try PNGDecoder.decode(png) == few)
    }

    @Test func changingThePixelsDropsTheAlternatesAndEqualityIgnoresThem() {
        var image = Self.image(width: 8, height: 8, gray: false, alpha: { _, _ in 255 })
        var plain = image
        plain.roundingAlternates = nil
        #expect(image == plain)
        image.pixels.withUnsafeMutableBufferPointer { $0[0] = 1 }
        #expect(image.roundingAlternates == nil)
    }

    @Test func theMeanOfFourChildrenNamesItsOtherNeighbour() throws {
        func child(_ v: UInt8) -> RGBAImage { RGBAImage(width: 4, height: 4, fill: (v, v, 9, 255)) }
        // The top-left parent pixel averages one pixel of each of rows 0-1, columns 0-1 of child 0.
        var c = child(2)
        c.pixels[0] = 1 // 1, 2, 2, 2 → 1.75: stored 2, alternate 1; blue 9 is whole
        let parent = try #require(TileDownsampler.parent(of: [c, nil, nil, nil], tileSize: 4))
        let alt = try #require(parent.roundingAlternates)
        #expect(Array(parent.pixels[0..<4]) == [2, 2, 9, 255])
        #expect(Array(alt[0..<4]) == [1, 2, 9, 255])
        #expect(Array(alt[4..<8]) == [2, 2, 9, 255]) // 2, 2, 2, 2: whole
    }

    @Test func compositesCarryTheAlternatesOfThePixelsTheyKeep() {
        func layer(_ alpha: UInt8, _ value: UInt8, alternate: UInt8) -> RGBAImage {
            let pixels = [UInt8](repeating: value, count: 3) + [alpha]
            return RGBAImage(width: 1, height: 1, pixels: pixels, roundingAlternates: [alternate, alternate, alternate, alpha])
        }
        // A top covering the pixel wholly gives its own; one that misses it keeps the bottom's.
        var bottom = layer(255, 100, alternate: 101)
        Compositing.join(layer(255, 50, alternate: 49), onto: &bottom)
        #expect(bottom.pixels == [50, 50, 50, 255] && bottom.roundingAlternates == [49, 49, 49, 255])
        bottom = layer(255, 100, alternate: 101)
        Compositing.draw(layer(0, 50, alternate: 49), over: &bottom)
        #expect(bottom.roundingAlternates == [101, 101, 101, 255])
        // A blend was rounded again: no alternate.
        bottom = layer(255, 100, alternate: 101)
        Compositing.draw(layer(128, 50, alternate: 49), over: &bottom)
        #expect(bottom.roundingAlternates.map { Array($0[0..<3]) == Array(bottom.pixels[0..<3]) } == true)
        // Fading changes alpha only; the colours keep theirs, alpha's is the new alpha.
        var faded = layer(255, 100, alternate: 101)
        Compositing.fade(&faded, opacity: 0.5)
        #expect(faded.roundingAlternates == [101, 101, 101, faded.pixels[3]])
    }
}
