import Foundation
import Testing
import TileGeometry
import TileStore
import TrailMapTestSupport

/// The CLI around trails in sharded builds and updates: `build --shard` parts with `--trails`
/// merged by `bundle merge` keep the trails searchable; `build --update` with a new trails style
/// succeeds and says the trails were redrawn; a trails-only overlay refuses `--shard`.
@Suite(.blockingThreads) struct TrailsShardUpdateCLITests {
    let dir = TemporaryDirectory()
    static let box = GeoBounds(west: -105.8, south: 40.2, east: -105.4, north: 40.5)

    func inputs() throws -> (source: String, trails: String) {
        let src = try TestSources.write(in: dir, name: "relief", width: 400, height: 300, bounds: Self.box, color: TestSources.terrain)
        let trails = dir.file("trails.geojson")
        try """
        {"type":"FeatureCollection","features":[
        {"type":"Feature","properties":{"name":"Bear Lake Trail","highway":"path","sac_scale":"hiking","osm_id":"1"},
         "geometry":{"type":"LineString","coordinates":[[-105.75,40.35],[-105.60,40.35],[-105.45,40.36]]}},
        {"type":"Feature","properties":{"name":"Corner Cutoff","highway":"track","osm_id":"2"},
         "geometry":{"type":"LineString","coordinates":[[-105.45,40.46],[-105.42,40.48]]}}
        ]}
        """.write(toFile: trails, atomically: true, encoding: .utf8)
        return (src, trails)
    }

    func build(_ args: [String], quiet: Bool = true) throws -> CLIRunner.Result {
        try CLIRunner.run(
            ["build", "--name", "Park", "--minzoom", "9", "--maxzoom", "12", "--rounding", "nearest"] + (quiet ? ["--quiet"] : []) + args)
    }

    @Test func shardPartsWithTrailsMergeAndAStyleChangeUpdates() throws {
        let (src, trails) = try inputs()
        let common = ["--source", src, "--trails", trails, "--trails-preset", "osm"]
        var parts = [String]()
        for k in 1...2 {
            let out = dir.file("part-\(k).mbtiles")
            let r = try build(common + ["--shard", "\(k)/2", "--out", out])
            #expect(r.status == 0, "\(r.stderr)")
            parts.append(out)
        }
        let merged = dir.file("merged.mbtiles")
        let merge = try CLIRunner.run(["bundle", "merge"] + parts + ["--out", merged])
        #expect(merge.status == 0, "\(merge.stderr)")
        let found = try CLIRunner.run(["trails", "search", merged, "--q", "bear lake trial", "--json"])
        #expect(found.status == 0 && found.stdout.contains("Bear Lake Trail"), "\(found.stdout)\(found.stderr)")
        let inspect = try CLIRunner.run(["bundle", "inspect", merged])
        #expect(inspect.stdout.contains("trails: 2 (easy 1, moderate 0, hard 0, expert 0, unknown 1)"), "\(inspect.stdout)")

        // A new style: the update succeeds (it was refused before) and says the trails were redrawn.
        let style = dir.file("style.json")
        try ##"{"colors": {"easy": "#f08c00"}, "lineWidth": [{"zoom": 10, "value": 3}]}"##.write(
            toFile: style, atomically: true, encoding: .utf8)
        let updated = dir.file("v2.mbtiles")
        let u = try build(common + ["--trails-style", style, "--update", merged, "--out", updated], quiet: false)
        #expect(u.status == 0, "\(u.stderr)")
        #expect(u.stdout.contains("trails: changed"), "\(u.stdout)")
        #expect(try CLIRunner.run(["bundle", "verify", updated]).status == 0)
    }

    @Test func aTrailsOnlyOverlayRefusesShard() throws {
        let (_, trails) = try inputs()
        let out = dir.file("overlay.mbtiles")
        let r = try build(["--trails", trails, "--shard", "1/2", "--out", out])
        #expect(r.status != 0 && r.stderr.contains("--shard needs --source"), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out))
    }
}
