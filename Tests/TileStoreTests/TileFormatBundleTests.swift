import Foundation
import Raster
import Testing
import TileGeometry
import TileStore
import TrailMapTestSupport

/// Export, extract and the verifier's metadata checks for png, WebP (lossless, lossy, 512 px) and
/// jpg bundles.
@Suite(.computeThreads) struct TileFormatBundleTests {
    let dir = TemporaryDirectory()

    /// Every tile is written as `{z}/{x}/{y}.EXT` with the bundle's extension, bytes unchanged; a
    /// jpg bundle's PNG edge tiles keep `.jpg` (one URL template for all tiles, as the server).
    @Test(arguments: TileVariant.all)
    func exportWritesTheFormatsExtension(variant: TileVariant) throws {
        let path = dir.file("\(variant).mbtiles")
        let tiles = try TestBundle.variant(variant, to: path)
        let out = dir.file("out-\(variant)")
        let stats = try BundleExporter.export(from: path, to: out)
        let ext = variant.format.fileExtension
        #expect(stats.fileExtension == ext && stats.tiles == tiles.count)
        let files = Set(FileManager.default.enumerator(atPath: out)?.compactMap { $0 as? String } ?? [])
            .filter { $0.split(separator: "/").count == 3 }
        #expect(files == Set(tiles.keys.map { "\($0.z)/\($0.x)/\($0.y).\(ext)" }), "\(variant): \(files.sorted().prefix(5))")
        for (t, bytes) in tiles {
            let written = try Data(contentsOf: URL(fileURLWithPath: "\(out)/\(t.z)/\(t.x)/\(t.y).\(ext)"))
            #expect([UInt8](written) == bytes, "\(variant) \(t)")
        }
        if variant.format == .jpg {
            let kinds = Set(tiles.values.map { TileFormat.sniff($0) })
            #expect(kinds == [.jpg, .png], "the jpg bundle holds JPEG and PNG edge tiles: \(kinds)")
        }
        let metadata =
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: "\(out)/metadata.json"))) as? [String: String]
        #expect(metadata?["format"] == variant.format.rawValue && metadata?["trailmap:tilesize"] == String(variant.tileSize))
    }

    @Test func exportExtensionsFromTheMetadataFormat() {
        let cases: [(String?, String)] = [
            ("png", "png"), ("webp", "webp"), ("jpg", "jpg"), ("jpeg", "jpg"), ("JPEG", "jpg"), ("WebP", "webp"),
            ("pbf", "pbf"), (nil, "png"), ("", "png"), ("../../x", "png"), ("image/png", "png"), ("a b", "png")
        ]
        for (format, ext) in cases {
            #expect(BundleExporter.fileExtension(format: format) == ext, "\(String(describing: format))")
        }
    }

    /// `bundle extract` keeps the tiles' bytes, format and tile size.
    @Test(arguments: TileVariant.all)
    func extractKeepsTheFormat(variant: TileVariant) throws {
        let path = dir.file("\(variant).mbtiles")
        let tiles = try TestBundle.variant(variant, to: path)
        let out = dir.file("cut-\(variant).mbtiles")
        let stats = try BundleExtractor.extract(from: path, bbox: GeoBounds(west: -105, south: 36, east: -101, north: 42), to: out)
        #expect(stats.tiles > 0)
        let reader = try BundleReader(path: out)
        let pairs = try reader.metadataPairs()
        #expect(pairs["format"] == variant.format.rawValue && pairs["trailmap:tilesize"] == String(variant.tileSize))
        var seen = 0
        try reader.forEachTile { t, data in
            seen += 1
            #expect([UInt8](data) == tiles[t], "\(variant) \(t)")
            return true
        }
        #expect(seen == stats.tiles)
    }

    @Test func aTileSizeOtherThan256Or512IsAProblem() throws {
        for (value, ok) in [("256", true), ("512", true), ("300", false), ("big", false), ("", false)] {
            let path = dir.file("size-\(value).mbtiles")
            let writer = try BundleWriter(path: path)
            try writer.add([(tile: TileID(z: 1, x: 0, y: 0)!, data: [7])])
            var meta = BundleMetadata(name: "s", bounds: VariantTiles.box, minZoom: 0, maxZoom: 3)
            meta.extra["trailmap:tilesize"] = value
            _ = try writer.finish(metadata: meta)
            let problems = BundleVerifier.verify(path: path) { _, _ in nil }
            #expect(problems == (ok ? [] : ["metadata \"trailmap:tilesize\" is \"\(value)\", expected 256 or 512"]), "\(value)")
            #expect(BundleMetadata.tileSize(try BundleReader(path: path).metadataPairs()) == (ok ? Int(value) : nil))
        }
    }
}
