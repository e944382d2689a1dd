import Foundation
import Testing
import TileGeometry
import TrailMapTestSupport

/// `build --update` matches sources by content as well as by path: the second edition of a map
/// series in a new folder updates the bundle (only the changed sheet's tiles made again), the
/// same sheets moved to another folder change nothing, and another layer is refused, saying why.
/// The sheets are GeoTIFFs made by gdal_translate.
@Suite(.serialized, .blockingThreads) struct SeriesUpdateCLITests {
    let dir = TemporaryDirectory()
    static let sheets = [
        "a": GeoBounds(west: -110, south: 36, east: -106.3, north: 39.2),
        "b": GeoBounds(west: -106.3, south: 36, east: -102.2, north: 39.2),
        "c": GeoBounds(west: -110, south: 39.2, east: -106.3, north: 41.7)
    ]

    /// Writes sheet `name` as `folder/name.tif`; `patch` paints a red square into it (a corrected sheet).
    func sheet(_ name: String, in folder: String, patch: Bool = false, bounds: GeoBounds? = nil) throws {
        try FileManager.default.createDirectory(atPath: dir.file(folder), withIntermediateDirectories: true)
        let png = try TestSources.write(in: dir, name: "\(name)-\(folder)", width: 160, height: 120, bounds: bounds ?? Self.sheets[name]!) {
            c, r in
            if patch && (60..<100).contains(c) && (40..<70).contains(r) { return (255, 0, 0, 255) }
            return TestSources.terrain(c + Int(name.unicodeScalars.first!.value) * 7, r)
        }
        try GDALTools.translate(png, dir.file("\(folder)/\(name).tif"), ["-a_srs", "EPSG:4326"])
    }

    func build(_ folder: String, out: String, update: String? = nil) throws -> CLIRunner.Result {
        try CLIRunner.run(
            [
                "build", "--source", dir.file(folder), "--name", "Series", "--minzoom", "3", "--maxzoom", "7",
                "--rounding", "nearest", "--threads", "2", "--out", dir.file(out)
            ]
                + (update.map { ["--update", dir.file($0)] } ?? []))
    }

    /// "tiles: N re-rendered" of an update's summary.
    func reRendered(_ r: CLIRunner.Result) -> Int? {
        guard let line = r.stdout.split(separator: "\n").first(where: { $0.hasPrefix("tiles: ") }) else { return nil }
        return Int(line.dropFirst("tiles: ".count).prefix { $0.isNumber })
    }

    @Test func aSecondEditionInANewFolderRebuildsOnlyTheChangedSheet() throws {
        for name in ["a", "b", "c"] { try sheet(name, in: "v1") }
        let v1 = try build("v1", out: "v1.mbtiles")
        try #require(v1.status == 0, "\(v1.stderr)")
        // v2: a and c as they were (copied), b corrected.
        try FileManager.default.createDirectory(atPath: dir.file("v2"), withIntermediateDirectories: true)
        for name in ["a", "c"] { try FileManager.default.copyItem(atPath: dir.file("v1/\(name).tif"), toPath: dir.file("v2/\(name).tif")) }
        try sheet("b", in: "v2", patch: true)

        let updated = try build("v2", out: "v2.mbtiles", update: "v1.mbtiles")
        #expect(updated.status == 0, "\(updated.stderr)")
        #expect(updated.stdout.contains("0 added, 0 removed, 1 changed (b.tif), 2 moved with the same content"), "\(updated.stdout)")
        let b = Self.sheets["b"]!.mercator
        let touching = (3...7).reduce(0) { sum, z in
            sum + TileRange(bounds: Self.sheets["b"]!, zoom: z).filter { $0.mercatorBounds.intersects(b) }.count
        }
        #expect(
            reRendered(updated) == touching,
            "re-rendered \(String(describing: reRendered(updated))), tiles touching b \(touching): \(updated.stdout)")

        let fresh = try build("v2", out: "fresh.mbtiles")
        #expect(fresh.status == 0, "\(fresh.stderr)")
        let got = try TestBundle.tiles(dir.file("v2.mbtiles")), want = try TestBundle.tiles(dir.file("fresh.mbtiles"))
        #expect(got.count == want.count && got.count > touching)
        let differing = want.keys.filter { got[$0] != want[$0] }
        #expect(differing.isEmpty, "\(differing.count) tiles differ from a fresh build of v2, e.g. \(differing.prefix(3))")
        #expect(try TestBundle.tiles(dir.file("v1.mbtiles")) != got, "the corrected sheet changed tiles")
    }

    @Test func theSameSheetsMovedRebuildNothing() throws {
        for name in ["a", "b", "c"] { try sheet(name, in: "v1") }
        try #require(try build("v1", out: "v1.mbtiles").status == 0)
        try FileManager.default.copyItem(atPath: dir.file("v1"), toPath: dir.file("archive"))
        let moved = try build("archive", out: "moved.mbtiles", update: "v1.mbtiles")
        #expect(moved.status == 0, "\(moved.stderr)")
        #expect(reRendered(moved) == 0, "\(moved.stdout)")
        #expect(moved.stdout.contains("0 added, 0 removed, 0 changed, 3 moved with the same content"), "\(moved.stdout)")
        #expect(try TestBundle.tiles(dir.file("moved.mbtiles")) == TestBundle.tiles(dir.file("v1.mbtiles")))
    }

    @Test func anotherLayerIsRefusedSayingWhy() throws {
        for name in ["a", "b"] { try sheet(name, in: "v1") }
        try #require(try build("v1", out: "v1.mbtiles").status == 0)
        // Other sheets (other names, other pixels) over the same area: another map.
        try sheet("x", in: "geology", bounds: Self.sheets["a"]!)
        try sheet("y", in: "geology", bounds: Self.sheets["b"]!)
        let other = try build("geology", out: "other.mbtiles", update: "v1.mbtiles")
        #expect(other.status == 1, "\(other.stdout)")
        #expect(
            other.stderr.contains(
                "its layer 1 is \"v1\", and layer 1 of this build (\"geology\", named after its first --source) is another one"),
            "\(other.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.file("other.mbtiles")))
    }
}
