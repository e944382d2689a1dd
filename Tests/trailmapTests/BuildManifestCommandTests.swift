import Foundation
import Testing
import TileGeometry
import TileStore
import TrailMapTestSupport

/// `trailmap build --manifest` and `--source PATH@Z0-Z1`: the same build two ways, and every
/// kind of bad manifest refused with the field or file named and nothing written.
@Suite(.serialized, .blockingThreads) struct BuildManifestCommandTests {
    let dir = TemporaryDirectory()
    static let box = GeoBounds(west: -110, south: 36, east: -101, north: 42)

    /// Two series and an overlay as PNG + world files in the test folder.
    func sources() throws -> (coarse: String, fine: String, trails: String) {
        let coarse = try TestSources.write(in: dir, name: "coarse", width: 90, height: 60, bounds: Self.box, color: TestSources.terrain)
        let fine = try TestSources.write(in: dir, name: "fine", width: 480, height: 320, bounds: Self.box) { c, r in
            (UInt8(40 + (c * 7) % 160), UInt8(200 - (r * 3) % 120), UInt8((c + r) % 256), 255)
        }
        let trails = try TestSources.write(in: dir, name: "trails", width: 480, height: 320, bounds: Self.box) { c, r in
            (c + 2 * r) % 40 < 4 ? (150, 60, 20, 255) : (0, 0, 0, 0)
        }
        return (coarse, fine, trails)
    }

    func write(_ json: String, _ name: String = "region.json") throws -> String {
        try json.write(toFile: dir.file(name), atomically: false, encoding: .utf8)
        return dir.file(name)
    }

    /// Every tile of a bundle: z/x/y → PNG bytes.
    func tiles(_ path: String) throws -> [String: Data] {
        var out = [String: Data]()
        try BundleReader(path: path).forEachTile { t, data in
            out["\(t.z)/\(t.x)/\(t.y)"] = data
            return true
        }
        return out
    }

    @Test func theShorthandEqualsTheManifest() throws {
        _ = try sources()
        let manifest = try write(
            """
            {"name": "Two series", "allowOverlap": true,
             "layers": [
               {"name": "coarse", "sources": ["coarse.png"], "minzoom": 3, "maxzoom": 4},
               {"name": "fine", "sources": ["fine.png"], "minzoom": 5, "maxzoom": 6},
               {"name": "trails", "sources": ["trails.png"], "minzoom": 4, "maxzoom": 6}]}
            """)
        let a = dir.file("manifest.mbtiles"), b = dir.file("shorthand.mbtiles")
        let viaManifest = try CLIRunner.run(["build", "--manifest", manifest, "--out", a, "--threads", "2", "--quiet"])
        #expect(viaManifest.status == 0, "\(viaManifest.stderr)")
        let viaFlags = try CLIRunner.run([
            "build", "--name", "Two series", "--source", dir.file("coarse.png@3-4"),
            "--source", dir.file("fine.png@5-6"), "--source", dir.file("trails.png@4-6"),
            "--out", b, "--threads", "2", "--quiet"
        ])
        #expect(viaFlags.status == 0, "\(viaFlags.stderr)")
        let ta = try tiles(a), tb = try tiles(b)
        #expect(!ta.isEmpty && ta == tb, "the same tiles, byte for byte (\(ta.count) and \(tb.count))")
        let la = BundleLayer.decode(metadata: try BundleReader(path: a).metadataPairs())
        let lb = BundleLayer.decode(metadata: try BundleReader(path: b).metadataPairs())
        #expect(la == lb && la?.map(\.name) == ["coarse", "fine", "trails"] && la?.map(\.minzoom) == [3, 5, 4])
        let zooms = try BundleReader(path: a).zoomLevels().map(\.zoom)
        #expect(zooms == [3, 4, 5, 6], "the zoom range spans the layers when not given")
    }

    @Test func withoutZoomsTheSourcesGiveThem() throws {
        _ = try sources()
        let manifest = try write(#"{"name": "Fine", "layers": [{"name": "fine", "sources": ["fine.png"]}]}"#, "auto.json")
        let a = dir.file("auto-manifest.mbtiles"), b = dir.file("auto-flags.mbtiles")
        let viaManifest = try CLIRunner.run(["build", "--manifest", manifest, "--out", a, "--threads", "2"])
        #expect(viaManifest.status == 0, "\(viaManifest.stderr)")
        let viaFlags = try CLIRunner.run(["build", "--name", "Fine", "--source", dir.file("fine.png"), "--out", b, "--threads", "2"])
        #expect(viaFlags.status == 0, "\(viaFlags.stderr)")
        let za = try BundleReader(path: a).zoomLevels().map(\.zoom), zb = try BundleReader(path: b).zoomLevels().map(\.zoom)
        // fine.png: 480 x 320 px over 9° x 6° at 36-42°N: 1,002 km x 860 km in Web Mercator, pixels of
        // 2.29 km (zoom 6's are 2.45 km, zoom 7's 1.22 km); zoom 5 tiles are 1,252 km wide, zoom 6 ones 626 km.
        #expect(za == [5, 6] && za == zb, "\(za) \(zb)")
        #expect(
            viaManifest.stdout.contains("zooms 5-6, from the sources' resolution and extent (the manifest's minzoom and maxzoom choose)"),
            "\(viaManifest.stdout)")
    }

    /// A layer with zooms beside one without: the unranged layer's sources extend the build to
    /// their zooms, in a manifest as on the command line.
    @Test func aLayerWithoutZoomsExtendsTheBuildToItsSources() throws {
        _ = try sources()
        let manifest = try write(
            """
            {"name": "Mixed", "allowOverlap": true,
             "layers": [{"name": "coarse", "sources": ["coarse.png"], "minzoom": 3, "maxzoom": 4},
                        {"name": "fine", "sources": ["fine.png"]}]}
            """, "mixed.json")
        let a = dir.file("mixed-manifest.mbtiles"), b = dir.file("mixed-flags.mbtiles")
        let viaManifest = try CLIRunner.run(["build", "--manifest", manifest, "--out", a, "--threads", "2"])
        #expect(viaManifest.status == 0, "\(viaManifest.stderr)")
        let viaFlags = try CLIRunner.run([
            "build", "--name", "Mixed", "--source", dir.file("coarse.png@3-4"),
            "--source", dir.file("fine.png"), "--out", b, "--threads", "2", "--quiet"
        ])
        #expect(viaFlags.status == 0, "\(viaFlags.stderr)")
        // fine.png alone gives zooms 5-6 (withoutZoomsTheSourcesGiveThem); coarse.png serves 3-4.
        let zooms = try BundleReader(path: a).zoomLevels().map(\.zoom)
        #expect(zooms == [3, 4, 5, 6], "\(zooms)")
        let ta = try tiles(a), tb = try tiles(b)
        #expect(!ta.isEmpty && ta == tb, "the same tiles, byte for byte (\(ta.count) and \(tb.count))")
        #expect(viaManifest.stdout.contains("zooms 3-6, from the sources"), "\(viaManifest.stdout)")

        // Without allowOverlap the two series overlap whatever the sources say: refused at once.
        let strict = try write(
            #"{"name": "Mixed", "layers": [{"name": "coarse", "sources": ["coarse.png"], "minzoom": 3, "maxzoom": 4}, "#
                + #"{"name": "fine", "sources": ["fine.png"]}]}"#,
            "strict.json")
        let refused = try CLIRunner.run(["build", "--manifest", strict, "--out", dir.file("strict.mbtiles")])
        #expect(
            refused.status != 0 && refused.stderr.contains("series \"fine\" (every zoom of the build) and \"coarse\" serve the same zooms"),
            "\(refused.stderr)")
        #expect(!refused.stdout.contains("inspecting") && !FileManager.default.fileExists(atPath: dir.file("strict.mbtiles")))
    }

    @Test func theManifestSetsTextsBoundsAndOutput() throws {
        _ = try sources()
        let manifest = try write(
            """
            {"name": "Clipped", "description": "Two series", "attribution": "Tests", "version": "2.1.0",
             "bounds": [-106, 38, -104, 40], "output": {"format": "png", "tileSize": 512, "effort": "fast"},
             "layers": [{"name": "coarse", "title": "Coarse maps", "sources": ["c*.png"], "minzoom": 4, "maxzoom": 6,
                         "resampling": "bilinear", "gcpTransform": "tps", "openOptions": [], "opacity": 1}]}
            """)
        let out = dir.file("clipped.mbtiles")
        let r = try CLIRunner.run(["build", "--manifest", manifest, "--out", out, "--quiet"])
        #expect(r.status == 0, "\(r.stderr)")
        let meta = try BundleReader(path: out).metadataPairs()
        #expect(meta["name"] == "Clipped" && meta["description"] == "Two series" && meta["attribution"] == "Tests")
        #expect(meta["version"] == "2.1.0" && meta["trailmap:tilesize"] == "512")
        #expect(meta["bounds"] == "-106.000000,38.000000,-104.000000,40.000000", "the region's bounds, not the source's")
        #expect(BundleLayer.decode(metadata: meta)?.first?.sources == ["coarse.png"], "the glob picked coarse.png")
        let inspect = try CLIRunner.run(["bundle", "inspect", out])
        #expect(inspect.stdout.contains("Coarse maps"), "\(inspect.stdout)")
        // A command-line flag wins over the manifest.
        let renamed = try CLIRunner.run(["build", "--manifest", manifest, "--name", "Renamed", "--out", dir.file("r.mbtiles"), "--quiet"])
        #expect(renamed.status == 0)
        #expect(try BundleReader(path: dir.file("r.mbtiles")).metadataPairs()["name"] == "Renamed")
    }

    @Test func badManifestsNameTheFieldAndWriteNothing() throws {
        _ = try sources()
        let layer = #"{"name": "coarse", "sources": ["coarse.png"], "minzoom": 3, "maxzoom": 5}"#
        let cases: [(String, String)] = [
            ("{ not json", "not valid JSON"),
            (#"{"name": "X", "layers": [\#(layer)], "colour": "red"}"#, "colour: unknown field"),
            (#"{"name": "X", "layers": [{"name": "a", "sources": ["coarse.png"], "zoom": 3}]}"#, "layers[0].zoom: unknown field"),
            (#"{"layers": [\#(layer)]}"#, "name: is required"),
            (#"{"name": "X", "layers": []}"#, "layers: must hold at least one layer"),
            (
                #"{"name": "X", "layers": [{"name": "a", "sources": [], "minzoom": 3, "maxzoom": 4}]}"#,
                "layers[0].sources: the layer has no sources"
            ),
            (
                #"{"name": "X", "layers": [{"name": "a", "sources": ["coarse.png"], "minzoom": 5, "maxzoom": 3}]}"#,
                "layers[0].minzoom: 5 is greater than maxzoom 3"
            ),
            (
                #"{"name": "X", "layers": [{"name": "a", "sources": ["coarse.png"], "minzoom": "3", "maxzoom": 4}]}"#,
                "layers[0].minzoom: must be a number"
            ),
            (
                #"{"name": "X", "layers": [\#(layer), {"name": "b", "sources": ["fine.png"], "minzoom": 5, "maxzoom": 6}]}"#,
                "series \"coarse\" (zooms 3-5) and \"b\" (zooms 5-6) serve the same zooms"
            ),
            (
                #"{"name": "X", "layers": [\#(layer), {"name": "b", "sources": ["fine.png"], "minzoom": 7, "maxzoom": 8}]}"#,
                "no layer serves zoom 6"
            ),
            (
                #"{"name": "X", "layers": [{"name": "a", "sources": ["sheets/*.tif"], "minzoom": 3, "maxzoom": 4}]}"#,
                "sheets/*.tif: the pattern matches no files"
            ),
            (
                #"{"name": "X", "bounds": [10, 10, 12, 12], "layers": [\#(layer)]}"#,
                "coarse.png (layer coarse): the source does not cover any tile of its zooms"
            ),
            (
                #"{"name": "X", "layers": [{"name": "a", "sources": ["coarse.png"], "opacity": 0}], "minzoom": 3, "maxzoom": 4}"#,
                "layers[0].opacity: must be more than 0"
            ),
            (#"{"name": "X", "output": {"format": "gif"}, "layers": [\#(layer)]}"#, "output.format: \"gif\" is not a tile format"),
            (
                #"{"name": "X", "layers": [{"name": "a", "openOptions": "DPI=300", "sources": ["coarse.png"]}], "#
                    + #""minzoom": 3, "maxzoom": 4}"#,
                "layers[0].openOptions: must be an array"
            ),
            (
                #"{"name": "X", "layers": [{"name": "a", "openOptions": ["DPI"], "sources": ["coarse.png"]}], "minzoom": 3, "maxzoom": 4}"#,
                "layers[0].openOptions[0]: must be KEY=VALUE"
            ),
            (
                #"{"name": "X", "layers": [{"name": "a", "gcpTransform": "order4", "sources": ["coarse.png"]}], "#
                    + #""minzoom": 3, "maxzoom": 4}"#,
                "layers[0].gcpTransform: \"order4\" is not one of auto, order1, order2, order3, tps"
            ),
            (
                #"{"name": "X", "layers": [{"name": "a", "kind": "underlay", "sources": ["coarse.png"], "minzoom": 3, "maxzoom": 4}]}"#,
                "layers[0].kind: \"underlay\" is not one of series, overlay"
            )
        ]
        for (i, (json, message)) in cases.enumerated() {
            let manifest = try write(json, "bad\(i).json")
            let out = dir.file("bad\(i).mbtiles")
            let r = try CLIRunner.run(["build", "--manifest", manifest, "--out", out, "--quiet"])
            #expect(r.status != 0, "case \(i) was accepted")
            #expect(r.stderr.contains(message), "case \(i): \(r.stderr)")
            #expect(!FileManager.default.fileExists(atPath: out), "case \(i) wrote \(out)")
        }
        let both = try CLIRunner.run([
            "build", "--manifest", try write(#"{"name": "X", "layers": [\#(layer)]}"#),
            "--source", dir.file("coarse.png"), "--out", dir.file("both.mbtiles")
        ])
        #expect(both.status != 0 && both.stderr.contains("drop --source"), "\(both.stderr)")
        let badRange = try CLIRunner.run(["build", "--name", "X", "--source", dir.file("coarse.png@3-x"), "--out", dir.file("z.mbtiles")])
        #expect(badRange.status != 0 && badRange.stderr.contains("the zoom range after @ must be Z0-Z1"), "\(badRange.stderr)")
    }
}
