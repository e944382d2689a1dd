import Testing
import TrailMapTestSupport
@testable import Raster

/// A grey image is encoded straight from its grey (and alpha) bytes into the very PNG its RGBA
/// form gives, whatever layout the encoder picks (palette at each bit depth, gray, gray and
/// alpha) and whatever the options; the PNG decodes to the RGBA form.
@Suite("PNG encoder: grey images", .computeThreads)
struct PNGGrayTests {
    /// What a grey image may hold: smooth shades (a hillshade), a few levels, one level; all
    /// opaque, with transparent voids, or all at one partial alpha (a layer's opacity).
    enum Shades: CaseIterable { case smooth, fewLevels, twoLevels, oneLevel, noisy }
    enum Alpha: CaseIterable { case opaque, voids, partial, voidsAndPartial, varied }

    static func image(_ shades: Shades, _ alpha: Alpha, width: Int = 64, height: Int = 48, seed: UInt64 = 7) -> GrayImage {
        var rng = SplitMix64(seed: seed)
        var gray = [UInt8](repeating: 0, count: width * height)
        var alphas = [UInt8](repeating: 255, count: width * height)
        for y in 0..<height {
            for x in 0..<width {
                let i = y * width + x
                gray[i] =
                    switch shades {
                    case .smooth: UInt8(1 + (x * 3 + y * 2) % 254)
                    case .fewLevels: UInt8(20 * ((x / 5 + y / 7) % 9) + 1)
                    case .twoLevels: (x + y) % 3 == 0 ? 40 : 200
                    case .oneLevel: 181
                    case .noisy: UInt8(truncatingIfNeeded: rng.next() % 255 + 1)
                    }
                let void = (x - 20) * (x - 20) + (y - 20) * (y - 20) < 100
                switch alpha {
                case .opaque: break
                case .voids: if void { (gray[i], alphas[i]) = (0, 0) }
                case .partial: alphas[i] = 153
                case .voidsAndPartial: (gray[i], alphas[i]) = void ? (0, 0) : (gray[i], 153)
                case .varied: alphas[i] = UInt8(truncatingIfNeeded: rng.next())
                }
            }
        }
        return GrayImage(width: width, height: height, gray: gray, alpha: alpha == .opaque ? nil : alphas)
    }

    static let optionSets: [PNGEncodingOptions] = {
        var fast = PNGEncodingOptions(compressionLevel: 6, effort: .fast)
        fast.rounding = .compact
        var adaptive = PNGEncodingOptions(compressionLevel: 7, effort: .fast)
        adaptive.adaptiveLevels = .init(palette: 7, dense: 10, denseBitsPerPixel: 1.2)
        var interlaced = PNGEncodingOptions(deflater: .zlib, compressionLevel: 6)
        interlaced.interlaced = true
        return [
            fast, adaptive, .default, interlaced, PNGEncodingOptions(deflater: .zlib, compressionLevel: 6, effort: .fast),
            PNGEncodingOptions(deflater: .zlib), PNGEncodingOptions(allowPalette: false, effort: .fast), .rgba
        ]
    }()

    @Test(arguments: Shades.allCases, Alpha.allCases)
    func theSamePNGAsTheRGBAForm(_ shades: Shades, _ alpha: Alpha) throws {
        let image = Self.image(shades, alpha)
        let rgba = image.rgba
        for (k, options) in Self.optionSets.enumerated() {
            let ours = try PNGEncoder.encode(image, options: options)
            #expect(ours == (try PNGEncoder.encode(rgba, options: options)), "options \(k)")
            #expect(try PNGDecoder.decode(ours) == rgba, "options \(k)")
            let tile = TileEncoding(png: options)
            #expect(try tile.encode(image) == (try tile.encode(rgba)), "options \(k)")
        }
    }

    /// The RGBA form: R = G = B = grey, alpha 255 where none is given.
    @Test func itsRGBAForm() {
        let gray = GrayImage(width: 2, height: 1, gray: [10, 200], alpha: [0, 77])
        #expect(gray.rgba.pixels == [10, 10, 10, 0, 200, 200, 200, 77])
        #expect(GrayImage(width: 2, height: 1, gray: [10, 200]).rgba.pixels == [10, 10, 10, 255, 200, 200, 200, 255])
        #expect(!gray.isOpaque && !gray.isFullyTransparent)
        #expect(GrayImage(width: 1, height: 1, gray: [3], alpha: [0]).isFullyTransparent)
        #expect(GrayImage(width: 1, height: 1, gray: [3], alpha: [255]).isOpaque)
    }

    /// JPEG and WebP bundles encode a grey tile as its RGBA form (a transparent one of a JPEG
    /// bundle as PNG).
    @Test(arguments: [TileFormat.jpg, .webp])
    func otherFormatsEncodeTheRGBAForm(_ format: TileFormat) throws {
        var encoding = TileEncoding(png: .default)
        encoding.format = format
        encoding.lossless = true
        for alpha in [Alpha.opaque, .voids] {
            let image = Self.image(.smooth, alpha)
            #expect(try encoding.encode(image) == (try encoding.encode(image.rgba)), "\(format) \(alpha)")
        }
    }
}
