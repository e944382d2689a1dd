import Foundation
import Raster
import Testing
import TileGeometry
import TileStore
import TrailMapTestSupport

/// `bundle verify`, `inspect` and `export` on png, WebP (lossless, lossy, 512 px) and jpg bundles
/// written directly (not built), so each tile's format is known.
@Suite(.blockingThreads) struct TileFormatBundleCommandTests {
    let dir = TemporaryDirectory()

    /// `NAME.mbtiles` in the test's folder (see `TestBundle.variant`).
    func bundle(
        _ name: String, _ variant: TileVariant, replace: [TileID: [UInt8]] = [:],
        metadata: [String: String] = [:]
    ) throws -> (path: String, tiles: [TileID: [UInt8]]) {
        let path = dir.file("\(name).mbtiles")
        return (path, try TestBundle.variant(variant, to: path, replace: replace, metadata: metadata))
    }

    @Test(arguments: TileVariant.all)
    func verifyPassesAndCatchesATileOfAnotherFormat(variant: TileVariant) throws {
        let (good, tiles) = try bundle("good", variant)
        let ok = try CLIRunner.run(["bundle", "verify", good])
        #expect(ok.status == 0, "\(variant): \(ok.stderr)")
        #expect(ok.stdout.contains("OK (\(tiles.count) tiles decode"), "\(ok.stdout)")

        let t = VariantTiles.opaqueTile
        let foreign = try variant.foreignTile(t)
        let found = try #require(TileFormat.sniff(foreign))
        let (bad, _) = try bundle("bad", variant, replace: [t: foreign])
        let r = try CLIRunner.run(["bundle", "verify", bad])
        #expect(r.status == 1, "\(variant)")
        let expected = "tile \(t): a \(found.rawValue.uppercased()) tile in a bundle whose format is \(variant.format.rawValue)"
        #expect(r.stderr.contains("1 problem(s)") && r.stderr.contains(expected), "\(variant): \(r.stderr)")
    }

    /// A tile of the other size than `trailmap:tilesize` says is a problem.
    @Test(arguments: [TileVariant.webpLossy, .webp512])
    func verifyCatchesATileOfAnotherSize(variant: TileVariant) throws {
        let other = variant.tileSize == 512 ? 256 : 512
        let t = VariantTiles.opaqueTile
        let (path, _) = try bundle("size", variant, replace: [t: try variant.encoding.encode(VariantTiles.image(t, size: other))])
        let r = try CLIRunner.run(["bundle", "verify", path])
        #expect(
            r.status == 1 && r.stderr.contains("tile \(t): is \(other)x\(other) px, but the bundle's tiles are \(variant.tileSize) px"),
            "\(r.stderr)")
    }

    @Test func verifyReportsAnUnknownFormatAndAcceptsJpeg() throws {
        let (gif, _) = try bundle("gif", .png, metadata: ["format": "gif"])
        let r = try CLIRunner.run(["bundle", "verify", gif])
        #expect(r.status == 1 && r.stderr.contains("metadata format is \"gif\", expected png, webp or jpg"), "\(r.stderr)")
        #expect(r.stderr.contains("1 problem(s)"), "the tiles themselves decode: \(r.stderr)")
        let (jpeg, _) = try bundle("jpeg", .jpg, metadata: ["format": "jpeg"])
        let ok = try CLIRunner.run(["bundle", "verify", jpeg])
        #expect(ok.status == 0, "\(ok.stderr)")
        let (size, _) = try bundle("size", .png, metadata: ["trailmap:tilesize": "300"])
        let bad = try CLIRunner.run(["bundle", "verify", size])
        #expect(bad.status == 1 && bad.stderr.contains("metadata \"trailmap:tilesize\" is \"300\", expected 256 or 512"), "\(bad.stderr)")
    }

    @Test(arguments: TileVariant.all)
    func inspectShowsFormatAndTileSize(variant: TileVariant) throws {
        let (path, _) = try bundle("i", variant)
        let text = try CLIRunner.run(["bundle", "inspect", path])
        #expect(
            text.status == 0 && text.stdout.contains("tiles: \(variant.format.rawValue), \(variant.tileSize) px"),
            "\(text.stdout.prefix(300))")
        #expect(text.stdout.contains("PNG where a tile has transparency") == (variant.format == .jpg))
        let json = try CLIRunner.run(["bundle", "inspect", path, "--json"])
        let object = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        #expect(object?["format"] as? String == variant.format.rawValue && object?["tileSize"] as? Int == variant.tileSize)
    }

    /// A `trailmap:tilesize` other than 256 or 512 is shown as unknown, not as a size.
    @Test func inspectShowsABadTileSizeAsUnknown() throws {
        let (path, _) = try bundle("bad-size", .png, metadata: ["trailmap:tilesize": "300"])
        let text = try CLIRunner.run(["bundle", "inspect", path])
        #expect(
            text.status == 0 && text.stdout.contains("tiles: png, size unknown (trailmap:tilesize \"300\")"), "\(text.stdout.prefix(300))")
        let json = try CLIRunner.run(["bundle", "inspect", path, "--json"])
        let object = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        #expect(object?["tileSize"] is NSNull, "\(String(describing: object?["tileSize"]))")
    }

    /// `bundle export` writes every tile at the bundle's extension, bytes unchanged (a jpg
    /// bundle's PNG edge tiles too, at `.jpg`), and says the layout.
    @Test(arguments: TileVariant.all)
    func exportWritesTheFormatsExtension(variant: TileVariant) throws {
        let (path, tiles) = try bundle("e", variant)
        let out = dir.file("out-\(variant)")
        let r = try CLIRunner.run(["bundle", "export", path, "--dir", out])
        let ext = variant.format.fileExtension
        #expect(r.status == 0 && r.stdout.contains("as {z}/{x}/{y}.\(ext)"), "\(r.stdout) \(r.stderr)")
        let files =
            FileManager.default.enumerator(atPath: out)?.compactMap { $0 as? String }.filter { $0.split(separator: "/").count == 3 } ?? []
        #expect(Set(files) == Set(tiles.keys.map { "\($0.z)/\($0.x)/\($0.y).\(ext)" }))
        let edge = VariantTiles.edgeTile
        let bytes = try Data(contentsOf: URL(fileURLWithPath: "\(out)/\(edge.z)/\(edge.x)/\(edge.y).\(ext)"))
        #expect([UInt8](bytes) == tiles[edge])
        #expect(TileFormat.sniff(bytes) == (variant.format == .jpg ? .png : variant.format))
    }
}
