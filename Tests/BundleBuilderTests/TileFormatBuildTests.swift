import Foundation
import Raster
import Testing
import TileGeometry
import TileStore
@testable import BundleBuilder
import TrailMapTestSupport

/// Building in each tile format: what the tiles are, what they decode to, what is refused.
@Suite(.computeThreads) struct TileFormatBuildTests {
    let dir = TemporaryDirectory()
    /// Smaller than the tiles around it, so edge tiles are partly transparent.
    static let area = GeoBounds(west: -109.7, south: 36.3, east: -101.3, north: 41.7)

    func source() throws -> String {
        try TestSources.write(in: dir, name: "terrain", width: 600, height: 400, bounds: Self.area, color: TestSources.terrain)
    }

    func build(_ out: String, tileSize: Int = 256, _ configure: (inout BuildOptions) -> Void) throws -> (BundleReader, [TileID: Data]) {
        var o = BuildOptions(sources: [try source()], name: "Formats", minZoom: 4, maxZoom: 7, output: dir.file(out))
        o.threads = 2
        o.tileSize = tileSize
        configure(&o)
        _ = try BundleBuilder(options: o).build()
        let reader = try BundleReader(path: dir.file(out))
        var tiles = [TileID: Data]()
        try reader.forEachTile { t, data in
            tiles[t] = data
            return true
        }
        return (reader, tiles)
    }

    func decoded(_ tiles: [TileID: Data]) throws -> [TileID: RGBAImage] {
        try tiles.mapValues { try TileDecoder.decode([UInt8]($0)) }
    }

    /// Lossless WebP stores the values as computed: a PNG build's pixels with rounding to nearest.
    @Test func losslessWebPHasThePNGBuildsPixels() throws {
        let (_, png) = try build("png.mbtiles") { $0.rounding = .nearest }
        let (reader, webp) = try build("webp.mbtiles") {
            $0.format = .webp; $0.lossless = true
        }
        #expect(try reader.metadataPairs()["format"] == "webp")
        #expect(webp.values.allSatisfy { TileFormat.sniff($0) == .webp })
        let a = try decoded(png), b = try decoded(webp)
        let same = a == b
        #expect(!a.isEmpty && same, "every tile decodes to the same RGBA, transparent edges included")
        let pngBytes = png.values.reduce(0) { $0 + $1.count }, webpBytes = webp.values.reduce(0) { $0 + $1.count }
        #expect(webpBytes < pngBytes, "\(webpBytes) vs \(pngBytes)")
    }

    @Test func jpegBundlesKeepTransparentTilesAsPNG() throws {
        let (_, png) = try build("png.mbtiles") { _ in }
        let (reader, jpg) = try build("jpg.mbtiles") {
            $0.format = .jpg; $0.quality = 90
        }
        #expect(try reader.metadataPairs()["format"] == "jpg")
        let reference = try decoded(png)
        var jpegs = 0, pngs = 0
        for (t, data) in jpg {
            let image = try TileDecoder.decode([UInt8](data), declared: .jpg)
            switch TileFormat.sniff(data) {
            case .jpg?:
                jpegs += 1
                #expect(reference[t]!.isOpaque, "\(t): only opaque tiles are JPEG")
                let q = psnr(image, reference[t]!)
                #expect(q > 30, "\(t): \(q) dB")
            case .png?:
                pngs += 1
                #expect(!reference[t]!.isOpaque, "\(t): a PNG tile has transparency")
                let same = image == reference[t]!
                #expect(same, "\(t): PNG tiles are lossless")
            default:
                Issue.record("\(t) is neither JPEG nor PNG")
            }
        }
        #expect(jpegs > 0 && pngs > 0, "\(jpegs) JPEG, \(pngs) PNG tiles")
    }

    @Test func lossyWebPAt512Pixels() throws {
        let (_, png) = try build("png512.mbtiles", tileSize: 512) { _ in }
        let (reader, webp) = try build("q80.mbtiles", tileSize: 512) {
            $0.format = .webp; $0.quality = 80
        }
        #expect(try reader.metadataPairs()["trailmap:tilesize"] == "512")
        let reference = try decoded(png)
        for (t, image) in try decoded(webp) {
            #expect(image.width == 512 && image.height == 512)
            let q = opaquePSNR(image, reference[t]!)
            #expect(q > 30, "\(t): \(q) dB where opaque")
        }
        #expect(webp.values.reduce(0) { $0 + $1.count } < png.values.reduce(0) { $0 + $1.count } / 2)
    }

    @Test func formatOptionsThatCannotGoTogetherAreRefusedBeforeWriting() throws {
        let cases: [(BuildOptionProblem, (inout BuildOptions) -> Void)] = [
            (.qualityForPNG, { $0.quality = 80 }),
            (
                .quality(0),
                {
                    $0.format = .webp; $0.quality = 0
                }
            ),
            (
                .quality(101),
                {
                    $0.format = .jpg; $0.quality = 101
                }
            ),
            (
                .losslessNotWebP,
                {
                    $0.format = .jpg; $0.lossless = true
                }
            ),
            (
                .qualityWithLossless,
                {
                    $0.format = .webp; $0.lossless = true; $0.quality = 90
                }
            )
        ]
        for (i, (problem, configure)) in cases.enumerated() {
            do {
                _ = try build("bad\(i).mbtiles", configure)
                Issue.record("case \(i) was accepted")
            } catch {
                guard case let .invalidOption(found)? = error as? BuildError else { Issue.record("case \(i): \(error)"); continue }
                #expect(found == problem, "case \(i): \(error)")
            }
            #expect(!FileManager.default.fileExists(atPath: dir.file("bad\(i).mbtiles")))
        }
    }

    /// PSNR over RGB where `reference` is opaque (lossy codecs may change what lies under alpha 0).
    func opaquePSNR(_ a: RGBAImage, _ reference: RGBAImage) -> Double {
        var sum = 0.0, n = 0
        for p in stride(from: 0, to: a.pixels.count, by: 4) where reference.pixels[p + 3] == 255 {
            for c in 0..<3 {
                let d = Double(a.pixels[p + c]) - Double(reference.pixels[p + c])
                sum += d * d
            }
            n += 3
        }
        return n == 0 || sum == 0 ? .infinity : 10 * log10(255 * 255 / (sum / Double(n)))
    }
}
