import BundlePatch
import Foundation
import GRDB
import Testing
import TrailMapTestSupport
import TrailSources
import Trails

/// The trails tables in a bundle: GDAL still opens it, the content hash covers them, a rewrite is whole.
@Suite(.computeThreads) struct TrailStoreTests {
    let dir = TemporaryDirectory()

    func trails() throws -> [TrailRecord] {
        let src = try TrailFixtures.geoJSON(in: dir)
        return try TrailIngest.read(path: src, options: TrailIngestOptions(mapping: try TrailFixtures.mapping(in: dir))).trails
    }

    @Test func gdalStillOpensTheBundleAndItsTilesAreUntouched() throws {
        let bundle = try TrailFixtures.bundle(in: dir)
        let tiles = try TestBundle.tiles(bundle)
        try TrailStoreWriter.write(try trails(), toBundle: bundle)
        let info = try GDALTools.run("gdalinfo", [bundle])
        #expect(info.contains("Driver: MBTiles/MBTiles"))
        #expect(info.contains("Band 4"))
        #expect(try TestBundle.tiles(bundle) == tiles)
        let queue = try DatabaseQueue(path: bundle)
        let tables = try queue.read {
            try String.fetchAll(
                $0, sql: "SELECT name FROM sqlite_master WHERE name IN ('trails', 'trails_rtree', 'trails_fts', 'trails_info')")
        }
        try queue.close()
        #expect(Set(tables) == ["trails", "trails_rtree", "trails_fts", "trails_info"])
    }

    @Test func contentHashCoversTheTrails() throws {
        let bundle = try TrailFixtures.bundle(in: dir)
        let withoutTrails = try ContentHash.of(bundle: bundle).hash
        let records = try trails()
        try TrailStoreWriter.write(records, toBundle: bundle)
        let withTrails = try ContentHash.of(bundle: bundle).hash
        #expect(withTrails != withoutTrails)
        // Written again, the same trails hash the same (a rebuild changes nothing).
        try TrailStoreWriter.write(records.reversed(), toBundle: bundle)
        #expect(try ContentHash.of(bundle: bundle).hash == withTrails)
        // A renamed trail changes the hash: a patch that does not carry it cannot pass as the new version.
        var renamed = records
        renamed[0].name = "Bear Lake Loop"
        try TrailStoreWriter.write(renamed, toBundle: bundle)
        #expect(try ContentHash.of(bundle: bundle).hash != withTrails)
        // Empty trails tables add nothing to the hash.
        try TrailStoreWriter.write([], toBundle: bundle)
        #expect(try ContentHash.of(bundle: bundle).hash == withoutTrails)
    }

    @Test func aFailedWriteLeavesTheOldTrails() throws {
        let bundle = try TrailFixtures.bundle(in: dir)
        let records = try trails()
        try TrailStoreWriter.write(records, toBundle: bundle)
        let duplicate = records + [records[0]]
        #expect(throws: TrailStoreError.duplicateID(path: bundle, id: records[0].id)) {
            try TrailStoreWriter.write(duplicate, toBundle: bundle)
        }
        #expect(try TrailIndex(bundle: bundle).count() == records.count)
    }

    @Test func geometryCodecRoundTripsToAMicrodegree() throws {
        let g = TrailGeometry(parts: [
            [LonLat(lon: -105.6451234, lat: 40.3123456), LonLat(lon: -105.64, lat: 40.315), LonLat(lon: 179.999999, lat: -89.5)],
            [LonLat(lon: -180, lat: 90), LonLat(lon: 0.0000004, lat: -0.0000006)]
        ])
        let bytes = GeometryCodec.encode(g)
        let back = try #require(GeometryCodec.decode(bytes))
        #expect(back.parts.map(\.count) == [3, 2])
        for (a, b) in zip(back.points, g.points) { #expect(abs(a.lon - b.lon) <= 5e-7 && abs(a.lat - b.lat) <= 5e-7) }
        #expect(GeometryCodec.decode(Array(bytes.dropLast())) == nil)
        #expect(GeometryCodec.decode(bytes + [0]) == nil)
        #expect(GeometryCodec.decode([0x81, 0x80, 0x80]) == nil)
    }

    /// Reference distances on WGS 84: a degree of longitude on the equator is a·π/180; a degree of
    /// latitude from the equator is the meridian arc, 110 574.389 m; and a long line's length as
    /// GDAL's SQLite dialect measures it on the ellipsoid (SpatiaLite's `ST_Length(geometry, 1)`).
    @Test func geodesicDistancesMatchReferences() throws {
        let equator = Geodesic.distance(LonLat(lon: 0, lat: 0), LonLat(lon: 1, lat: 0))
        #expect(abs(equator - 6_378_137 * Double.pi / 180) < 1e-6)
        let meridian = Geodesic.distance(LonLat(lon: 0, lat: 0), LonLat(lon: 0, lat: 1))
        #expect(abs(meridian - 110_574.389) < 0.01)
        let line = dir.file("long.geojson")
        try """
        {"type":"FeatureCollection","features":[{"type":"Feature","properties":{"name":"Long"},\
        "geometry":{"type":"LineString","coordinates":[[-105.6,40.3],[-104.9,39.7],[-100,45],[10,60]]}}]}
        """.write(toFile: line, atomically: true, encoding: .utf8)
        let out = try GDALTools.run("ogrinfo", ["-q", "-dialect", "SQLite", "-sql", "SELECT ST_Length(geometry, 1) AS len FROM long", line])
        let reference = try #require(
            out.split(separator: "\n").compactMap { l -> Double? in
                let t = l.trimmingCharacters(in: .whitespaces)
                return t.hasPrefix("len (Real) = ") ? Double(t.dropFirst("len (Real) = ".count)) : nil
            }.first)
        let trail = try #require(try TrailIngest.read(path: line).trails.first)
        #expect(abs(trail.lengthMetres - reference) < 0.01, "\(trail.lengthMetres) vs \(reference)")
    }
}

/// Damaged trails tables: verify names each problem; search fails with a structured error, never traps.
@Suite(.computeThreads) struct TrailVerifyTests {
    let dir = TemporaryDirectory()

    @Test func damageIsFoundAndNeverCrashesASearch() throws {
        let src = try TrailFixtures.geoJSON(in: dir)
        let records = try TrailIngest.read(path: src, options: TrailIngestOptions(mapping: try TrailFixtures.mapping(in: dir))).trails
        let bundle = try TrailFixtures.bundle(in: dir)
        try TrailStoreWriter.write(records, toBundle: bundle)
        #expect(try TrailIndex(bundle: bundle).verify() == [])
        let bear = TrailID(identity: "field:trail_id:RMNP-1"), longs = TrailID(identity: "field:trail_id:RMNP-3")
        let glacier = TrailID(identity: "field:trail_id:RMNP-5")
        let queue = try DatabaseQueue(path: bundle)
        try queue.write { db in
            try db.execute(sql: "UPDATE trails SET geometry = X'05FFFF', name = X'FF00' WHERE id = ?", arguments: [bear.value])
            try db.execute(sql: "UPDATE trails SET difficulty = 'lethal', min_lon = 0 WHERE id = ?", arguments: [longs.value])
            try db.execute(sql: "UPDATE trails SET length_m = -1, min_lat = 'north' WHERE id = ?", arguments: [glacier.value])
            try db.execute(sql: "DELETE FROM trails_rtree WHERE id = ?", arguments: [longs.value])
        }
        try queue.close()
        let problems = try TrailIndex(bundle: bundle).verify()
        #expect(
            Set(problems) == [
                .spatialIndexMismatch(trails: 6, indexed: 5), .badGeometry(id: bear),
                .badDifficulty(id: longs, value: "lethal"), .boundsMismatch(id: longs),
                .badLength(id: glacier), .boundsMismatch(id: glacier)
            ])
        var q = TrailQuery()
        q.near = TrailFixtures.bearLake
        q.radiusKm = 5
        #expect(throws: TrailSearchError.store(.badGeometry(path: bundle, id: bear))) {
            try TrailSearch.search(q, bundles: [URL(fileURLWithPath: bundle)])
        }
        // Without geometry, the damaged rows still read (the difficulty off the ladder as unknown).
        var byName = TrailQuery()
        byName.text = "longs"
        let hit = try #require(try TrailIndex(bundle: bundle).search(byName).hits.first)
        #expect(hit.trail.difficulty == .unknown)
        #expect(throws: TrailStoreError.badGeometry(path: bundle, id: bear)) { try TrailIndex(bundle: bundle).trail(bear) }
    }
}

/// Delta updates carry trails: a patch puts the trails added or changed and deletes the removed,
/// and the patched bundle hashes as the published version.
@Suite(.computeThreads) struct TrailPatchTests {
    let dir = TemporaryDirectory()

    /// v1: the fixture's trails; v2: Bear Lake renamed, Cherry Creek removed, the OSM ways added.
    func versions() throws -> (v1: String, v2: String, renamed: TrailID, removed: TrailID, added: Int) {
        let src = try TrailFixtures.geoJSON(in: dir)
        var records = try TrailIngest.read(path: src, options: TrailIngestOptions(mapping: try TrailFixtures.mapping(in: dir))).trails
        let v1 = try TrailFixtures.bundle(in: dir, name: "v1.mbtiles")
        try TrailStoreWriter.write(records, toBundle: v1)
        let v2 = try TrailFixtures.bundle(in: dir, name: "v2.mbtiles")
        let bear = TrailID(identity: "field:trail_id:RMNP-1"), cherry = TrailID(identity: "field:trail_id:DEN-1")
        let index = try #require(records.firstIndex { $0.id == bear })
        records[index].name = "Bear Lake Loop"
        records.removeAll { $0.id == cherry }
        let osm = try TrailIngest.read(path: try TrailFixtures.osm(in: dir)).trails
        try TrailStoreWriter.write(records + osm, toBundle: v2)
        return (v1, v2, bear, cherry, osm.count)
    }

    func count(_ patch: String, _ table: String) throws -> Int {
        let q = try DatabaseQueue(path: patch)
        defer { try? q.close() }
        return try q.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM \(table)") ?? -1 }
    }

    @Test func aPatchCarriesRenamedAddedAndRemovedTrails() throws {
        let (v1, v2, renamed, removed, added) = try versions()
        let store = PatchStore(root: dir.file("patches"))
        let c1 = try store.record(productId: "park", version: 1, bundle: v1, sha256: "v1").contentHash
        let c2 = try store.record(productId: "park", version: 2, bundle: v2, sha256: "v2").contentHash
        #expect(c1 != c2)
        let patch = store.patchPath("park", from: 1, to: 2)
        #expect(try count(patch, "trails_put") == 1 + added, "only the changed and the new trails")
        #expect(try count(patch, "trails_del") == 1)
        let out = dir.file("applied.mbtiles")
        #expect(try PatchApplier.apply([patch], to: v1, output: out, expected: c2) == c2)
        let index = try TrailIndex(bundle: out)
        #expect(try index.trail(renamed)?.name == "Bear Lake Loop")
        #expect(try index.trail(removed) == nil)
        #expect(try index.verify() == [])
        var q = TrailQuery()
        q.text = "bear lake loop"
        #expect(try index.search(q).hits.map(\.trail.id) == [renamed])
        q.text = "cherry creek"
        #expect(try index.search(q).hits.isEmpty, "the removed trail is gone from the name index")
        q.text = "sky pond"
        #expect(try index.search(q).total == 2)
    }

    @Test func anIndexWithoutTrailHashesGetsAPatchReplacingAllTrails() throws {
        let (v1, v2, renamed, _, added) = try versions()
        let store = PatchStore(root: dir.file("patches"))
        _ = try store.record(productId: "park", version: 1, bundle: v1, sha256: "v1")
        // An index made before trails were indexed.
        let old = try DatabaseQueue(path: dir.file("patches/park/v1.index"))
        try old.write { try $0.execute(sql: "DROP TABLE trails") }
        try old.close()
        let c2 = try store.record(productId: "park", version: 2, bundle: v2, sha256: "v2").contentHash
        let patch = store.patchPath("park", from: 1, to: 2)
        #expect(try count(patch, "trails_put") == 5 + added)
        let out = dir.file("replaced.mbtiles")
        #expect(try PatchApplier.apply([patch], to: v1, output: out, expected: c2) == c2)
        #expect(try TrailIndex(bundle: out).trail(renamed)?.name == "Bear Lake Loop")
        #expect(try TrailIndex(bundle: out).verify() == [])
    }

    @Test func trailsAddedToABundleThatHadNoneArriveByPatch() throws {
        let v1 = try TrailFixtures.bundle(in: dir, name: "v1.mbtiles")
        let v2 = try TrailFixtures.bundle(in: dir, name: "v2.mbtiles")
        let osm = try TrailIngest.read(path: try TrailFixtures.osm(in: dir)).trails
        try TrailStoreWriter.write(osm, toBundle: v2)
        let store = PatchStore(root: dir.file("patches"))
        _ = try store.record(productId: "park", version: 1, bundle: v1, sha256: "v1")
        let c2 = try store.record(productId: "park", version: 2, bundle: v2, sha256: "v2").contentHash
        let out = dir.file("applied.mbtiles")
        #expect(try PatchApplier.apply([store.patchPath("park", from: 1, to: 2)], to: v1, output: out, expected: c2) == c2)
        #expect(try TrailIndex(bundle: out).count() == osm.count)
    }
}
