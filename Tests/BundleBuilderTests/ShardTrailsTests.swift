import Foundation
import GRDB
import Testing
import TileGeometry
import TileStore
@testable import BundleBuilder
import TrailMapTestSupport
import Trails

/// `--shard K/N` with `--trails`, then `bundle merge`: the merged bundle equals a build on one
/// machine, tiles (the trails drawn over the levels the merge makes too) and trail rows alike,
/// each trail once. Trails from a GeoPackage ogr2ogr writes from GeoJSON here.
@Suite(.computeThreads) struct ShardTrailsTests {
    let dir = TemporaryDirectory()

    /// Two sheets (as `ShardMergeTests`'), and OSM-tagged lines: a long one across both, a short
    /// one in the north, a two-part one in the south.
    func inputs() throws -> (sources: [String], trails: String) {
        let a = try TestSources.write(in: dir, name: "a", width: 300, height: 300, bounds: ShardMergeTests.west, color: TestSources.terrain)
        let b = try TestSources.write(in: dir, name: "b", width: 200, height: 160, bounds: ShardMergeTests.east) { c, r in
            (c < 12 || r < 12 || c >= 188 || r >= 148) ? (0, 0, 0, 0) : (UInt8(c), UInt8(r), 90, 255)
        }
        let geojson = dir.file("trails.geojson")
        try """
        {"type":"FeatureCollection","features":[
        {"type":"Feature","properties":{"osm_id":"11","highway":"path","name":"Continental Crest","sac_scale":"mountain_hiking"},
         "geometry":{"type":"LineString","coordinates":[[-109.2,37.1],[-107.0,38.4],[-105.1,38.0],[-103.0,39.2],[-101.6,39.9]]}},
        {"type":"Feature","properties":{"osm_id":"12","highway":"track","name":"North Fork Track","mtb:scale":"3"},
         "geometry":{"type":"LineString","coordinates":[[-107.3,41.2],[-106.6,41.6]]}},
        {"type":"Feature","properties":{"osm_id":"13","highway":"footway","name":"Mesa Spur"},
         "geometry":{"type":"MultiLineString","coordinates":[[[-108.5,36.5],[-108.0,36.7]],[[-107.9,36.8],[-107.2,36.6]]]}}
        ]}
        """.write(toFile: geojson, atomically: true, encoding: .utf8)
        let gpkg = dir.file("trails.gpkg")
        try GDALTools.run("ogr2ogr", ["-f", "GPKG", gpkg, geojson])
        return ([a, b], gpkg)
    }

    func options(_ inputs: (sources: [String], trails: String), out: String, shard: ShardSpec? = nil) -> BuildOptions {
        var o = BuildOptions(sources: inputs.sources, name: "Sharded trails", minZoom: 2, maxZoom: 9, output: dir.file(out))
        o.threads = 2
        o.shard = shard
        var t = TrailLayerOptions(sources: [inputs.trails])
        t.mapping = TrailLayerOptions.osmPreset
        o.trails = t
        return o
    }

    /// Every row of `table` of `path`, in rowid order.
    static func rows(_ table: String, _ path: String) throws -> [[DatabaseValue]] {
        let queue = try DatabaseQueue(path: path)
        defer { try? queue.close() }
        return try queue.read { db in try Row.fetchAll(db, sql: "SELECT * FROM \(table) ORDER BY rowid").map { Array($0.databaseValues) } }
    }

    @Test(arguments: [2, 3]) func partsWithTrailsMergeIntoTheSingleBuild(parts n: Int) throws {
        let input = try inputs()
        _ = try BundleBuilder(options: options(input, out: "single.mbtiles")).build()
        let single = dir.file("single.mbtiles"), merged = dir.file("merged.mbtiles")
        var parts = [String]()
        for k in 1...n {
            _ = try BundleBuilder(options: options(input, out: "part-\(k).mbtiles", shard: try ShardSpec(index: k, count: n))).build()
            parts.append(dir.file("part-\(k).mbtiles"))
        }
        let report = try BundleMerger(parts: parts.reversed(), output: merged).merge()
        #expect(report.upperTiles > 0)

        // Tile for tile: the levels the merge makes carry the trails a single build draws there.
        let singleTiles = try TestBundle.tiles(single), mergedTiles = try TestBundle.tiles(merged)
        #expect(mergedTiles.count == singleTiles.count)
        let differing = singleTiles.filter { mergedTiles[$0.key] != $0.value }.map(\.key).sorted { ($0.z, $0.x, $0.y) < ($1.z, $1.x, $1.y) }
        #expect(differing.isEmpty, "\(differing.count) tiles differ, e.g. \(differing.prefix(4))")

        // The trails once each, the rows, boxes, counts and name index as the single build's.
        let ids = try TrailIndex(bundle: single).all().map(\.id)
        #expect(ids.count == 3)
        let index = try TrailIndex(bundle: merged)
        #expect(try index.all().map(\.id) == ids && index.verify().isEmpty)
        for table in ["trails", "trails_rtree", "trails_info"] {
            #expect(try Self.rows(table, merged) == Self.rows(table, single), "\(table)")
        }
        var q = TrailQuery()
        q.text = "continental crst"
        #expect(try index.search(q).hits.map(\.trail.name) == ["Continental Crest"])
        #expect(BundleVerifier.verify(path: merged) { _, _ in nil }.isEmpty)
    }

    @Test func aPartWithoutTrailsIsRefused() throws {
        let input = try inputs()
        var parts = [String]()
        for k in 1...2 {
            _ = try BundleBuilder(options: options(input, out: "part-\(k).mbtiles", shard: try ShardSpec(index: k, count: 2))).build()
            parts.append(dir.file("part-\(k).mbtiles"))
        }
        // Part 2 loses its trails (as a part built before parts stored them).
        let queue = try DatabaseQueue(path: parts[1])
        try queue.write { db in for t in ["trails_fts", "trails_rtree", "trails", "trails_info"] { try db.execute(sql: "DROP TABLE \(t)") }
        }
        try queue.close()
        #expect {
            try BundleMerger(parts: parts, output: dir.file("merged.mbtiles")).merge()
        } throws: { error in
            guard case let .partWithoutTrails(path) = error as? BuildError else { return false }
            return path == parts[1]
        }
        #expect(!FileManager.default.fileExists(atPath: dir.file("merged.mbtiles")))
    }

    @Test func aTrailsOnlyOverlayIsNotSharded() throws {
        let input = try inputs()
        var o = options(input, out: "overlay.mbtiles", shard: try ShardSpec(index: 1, count: 2))
        o.sources = []
        #expect {
            try BundleBuilder(options: o).build()
        } throws: { error in
            if case .trailsOverlayNotSharded = error as? BuildError { return true }
            return false
        }
    }
}
