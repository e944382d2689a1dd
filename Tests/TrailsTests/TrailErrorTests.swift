import Foundation
import GRDB
import Testing
import TrailMapTestSupport
import TrailSources
import Trails

/// Bad input: each gives a structured error naming the file, layer, field or parameter.
@Suite(.computeThreads) struct TrailErrorTests {
    let dir = TemporaryDirectory()

    func write(_ text: String, _ name: String) throws -> String {
        let path = dir.file(name)
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func aFileGDALCannotOpen() throws {
        let path = try write("this is not a vector file\n", "notes.txt")
        #expect { try TrailIngest.read(path: path) } throws: { error in
            guard case let .cannotOpen(p, _) = error as? TrailIngestError else { return false }
            return p == path
        }
        let missing = dir.file("missing.geojson")
        #expect(throws: TrailIngestError.cannotOpen(path: missing, reason: "no such file")) { try TrailIngest.read(path: missing) }
    }

    @Test func aFileWithoutLines() throws {
        let points = try write(
            """
            {"type":"FeatureCollection","features":[{"type":"Feature","properties":{"name":"Summit"},\
            "geometry":{"type":"Point","coordinates":[-105.6,40.3]}},{"type":"Feature","properties":{"name":"Lake"},\
            "geometry":{"type":"Polygon","coordinates":[[[-105.6,40.3],[-105.5,40.3],[-105.5,40.4],[-105.6,40.3]]]}}]}
            """, "points.geojson")
        #expect(throws: TrailIngestError.noLines(path: points)) { try TrailIngest.read(path: points) }
        // Lines, but none a trail by the OpenStreetMap preset.
        let roads = try write(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <osm version="0.6"><node id="1" version="1" lat="40.3" lon="-105.6"/><node id="2" version="1" lat="40.31" lon="-105.6"/>
            <way id="9" version="1"><nd ref="1"/><nd ref="2"/><tag k="highway" v="primary"/></way></osm>
            """, "roads.osm")
        #expect(throws: TrailIngestError.noneMatchFilter(path: roads, lines: 1)) { try TrailIngest.read(path: roads) }
        let gpx = try TrailFixtures.convert(
            points, to: dir.file("waypoints.gpx"), format: "GPX", ["-where", "name = 'Summit'", "-nlt", "POINT"])
        #expect(throws: TrailIngestError.noLines(path: gpx)) { try TrailIngest.read(path: gpx) }
    }

    @Test func aShapefileWithoutCRS() throws {
        let src = try TrailFixtures.geoJSON(in: dir)
        let shp = try TrailFixtures.convert(src, to: dir.file("nocrs.shp"), format: "ESRI Shapefile")
        try FileManager.default.removeItem(atPath: dir.file("nocrs.prj"))
        #expect(throws: TrailIngestError.noCRS(path: shp, layer: "nocrs")) { try TrailIngest.read(path: shp) }
        var options = TrailIngestOptions()
        options.assumedCRS = "EPSG:4326"
        #expect(try TrailIngest.read(path: shp, options: options).trails.count == TrailFixtures.trails.count)
        options.assumedCRS = "EPSG:999999"
        #expect { try TrailIngest.read(path: shp, options: options) } throws: { error in
            guard case let .badCRS(input, _) = error as? TrailIngestError else { return false }
            return input == "EPSG:999999"
        }
    }

    @Test func aMappingNamingAMissingField() throws {
        let src = try TrailFixtures.geoJSON(in: dir)
        let mapping = TrailFieldMapping(name: "trail_name", difficulty: ["rating"])
        #expect(throws: TrailIngestError.missingField(path: src, layer: "trails", field: "trail_name", role: "name")) {
            try TrailIngest.read(path: src, options: TrailIngestOptions(mapping: mapping))
        }
        let bad = try write(#"{"uses": {"skateboard": "hike"}}"#, "bad-mapping.json")
        #expect { try TrailFieldMapping.load(path: bad) } throws: { error in
            guard case let .badMapping(p, reason) = error as? TrailIngestError else { return false }
            return p == bad && reason.contains("skateboard")
        }
        for (json, words) in [
            (#"{"difficulty": ["rating"]}"#, "rating has no difficultyValues"),
            (#"{"difficultyValues": {"level": {"1": "easy"}}}"#, "level is not one of the difficulty fields"),
            (#"{"uses": {"foot": "hike"}}"#, "give useValues too")
        ] {
            let file = try write(json, "incomplete.json")
            #expect { try TrailFieldMapping.load(path: file) } throws: { error in
                guard case let .badMapping(p, reason) = error as? TrailIngestError else { return false }
                return p == file && reason.contains(words)
            }
        }
        let wrongType = try write(#"{"difficultyValues": {"rating": {"green": "trivial"}}}"#, "wrong.json")
        #expect { try TrailFieldMapping.load(path: wrongType) } throws: { error in
            guard case let .badMapping(p, reason) = error as? TrailIngestError else { return false }
            return p == wrongType && reason.contains("difficultyValues")
        }
    }

    @Test func emptyAndDegenerateGeometries() throws {
        let empty = try write(
            """
            {"type":"FeatureCollection","features":[{"type":"Feature","properties":{"name":"Nothing"},\
            "geometry":{"type":"LineString","coordinates":[]}}]}
            """, "empty.geojson")
        #expect(throws: TrailIngestError.degenerateGeometry(path: empty, layer: "empty", feature: 0, reason: "the line is empty")) {
            try TrailIngest.read(path: empty)
        }
        let onePoint = try write(
            """
            {"type":"FeatureCollection","features":[\
            {"type":"Feature","properties":{"name":"Good"},"geometry":{"type":"LineString","coordinates":[[-105.6,40.3],[-105.5,40.3]]}},\
            {"type":"Feature","properties":{"name":"Stuck"},"geometry":{"type":"LineString","coordinates":[[-105.6,40.3],[-105.6,40.3]]}}]}
            """, "stuck.geojson")
        let expected = TrailIngestError.degenerateGeometry(
            path: onePoint, layer: "stuck", feature: 1, reason: "the line has fewer than two distinct points")
        #expect(throws: expected) { try TrailIngest.read(path: onePoint) }
        var options = TrailIngestOptions()
        options.skipInvalidFeatures = true
        let skipped = try TrailIngest.read(path: onePoint, options: options)
        #expect(skipped.trails.map(\.name) == ["Good"] && skipped.skipped == [expected])
    }

    @Test func lineAcrossTheAntimeridianAndTooManyPoints() throws {
        let across = try write(
            """
            {"type":"FeatureCollection","features":[{"type":"Feature","properties":{"name":"Date line"},\
            "geometry":{"type":"LineString","coordinates":[[179.9,-16.5],[-179.9,-16.6]]}}]}
            """, "across.geojson")
        #expect(throws: TrailIngestError.crossesAntimeridian(path: across, layer: "across", feature: 0)) {
            try TrailIngest.read(path: across)
        }
        let coords = (0..<1001).map { "[\(-105 + Double($0) * 0.0001),40.3]" }.joined(separator: ",")
        let long = try write(
            """
            {"type":"FeatureCollection","features":[{"type":"Feature","properties":{"name":"Long"},\
            "geometry":{"type":"LineString","coordinates":[\(coords)]}}]}
            """, "long.geojson")
        var options = TrailIngestOptions()
        options.maxPointsPerTrail = 1000
        #expect(throws: TrailIngestError.tooManyPoints(path: long, layer: "long", feature: 0, count: 1001, limit: 1000)) {
            try TrailIngest.read(path: long, options: options)
        }
    }

    @Test func namesThatAreNotUTF8() throws {
        let src = try TrailFixtures.geoJSON(in: dir)
        let gpkg = try TrailFixtures.convert(
            src, to: dir.file("latin1.gpkg"), format: "GPKG", ["-nln", "trails", "-lco", "SPATIAL_INDEX=NO"])
        // "Caf\xe9": Latin-1 bytes stored as text, as a careless tool would.
        let queue = try DatabaseQueue(path: gpkg)
        try queue.write { try $0.execute(sql: "UPDATE trails SET name = CAST(X'436166E9' AS TEXT) WHERE trail_id = 'RMNP-3'") }
        try queue.close()
        #expect { try TrailIngest.read(path: gpkg) } throws: { error in
            guard case let .invalidText(p, layer, _, field) = error as? TrailIngestError else { return false }
            return p == gpkg && layer == "trails" && field == "name"
        }
    }

    @Test func contradictoryAndOutOfRangeQueries() throws {
        func check(_ expected: TrailQueryError, _ edit: (inout TrailQuery) -> Void) {
            var q = TrailQuery()
            edit(&q)
            #expect(throws: expected) { try q.validate() }
        }
        let p = LonLat(lon: -105.6, lat: 40.3)
        check(.contradictory(parameters: ["minLengthKm", "maxLengthKm"], reason: "the minimum 5.0 is above the maximum 2.0")) {
            $0.minLengthKm = 5; $0.maxLengthKm = 2
        }
        check(.invalid(parameter: "radiusKm", reason: "must be greater than 0, got 0.0")) {
            $0.near = p; $0.radiusKm = 0
        }
        check(.invalid(parameter: "radiusKm", reason: "must be greater than 0, got -3.0")) {
            $0.near = p; $0.radiusKm = -3
        }
        check(.invalid(parameter: "radiusKm", reason: "a search near a point needs a radius")) { $0.near = p }
        check(.contradictory(parameters: ["radiusKm", "near"], reason: "a radius needs a point")) { $0.radiusKm = 3 }
        check(.contradictory(parameters: ["near", "bbox"], reason: "give a point and radius or a box, not both")) {
            $0.near = p; $0.radiusKm = 1; $0.bbox = TrailBox(west: -106, south: 40, east: -105, north: 41)
        }
        check(
            .contradictory(
                parameters: ["bbox"], reason: "west 10.0 is east of east 5.0 (a box across the antimeridian has west > 0 > east)")
        ) {
            $0.bbox = TrailBox(west: 10, south: 40, east: 5, north: 41)
        }
        check(.invalid(parameter: "bbox", reason: "south 41.0 is north of north 40.0")) {
            $0.bbox = TrailBox(west: -106, south: 41, east: -105, north: 40)
        }
        check(.invalid(parameter: "near", reason: "latitude 95.0 is outside -90...90")) {
            $0.near = LonLat(lon: 0, lat: 95); $0.radiusKm = 1
        }
        check(.contradictory(parameters: ["uses", "excludeUses"], reason: "horse both required and excluded")) {
            $0.uses = [.of(.horse)]; $0.excludeUses = [.of(.horse)]
        }
        check(.invalid(parameter: "limit", reason: "must be 1...1000, got 0")) { $0.limit = 0 }
        check(.sortNeedsPoint) { $0.sort = .distance }
    }

    @Test func bundlesWithoutTrailsOrNotBundles() throws {
        let bundle = try TrailFixtures.bundle(in: dir)
        #expect(throws: TrailStoreError.noTrails(path: bundle)) { try TrailIndex(bundle: bundle) }
        let text = try write("hello", "fake.mbtiles")
        #expect(throws: TrailStoreError.notBundle(path: text, reason: "not an SQLite database")) {
            try TrailStoreWriter.write([], toBundle: text)
        }
        let plain = dir.file("plain.sqlite")
        let queue = try DatabaseQueue(path: plain)
        try queue.write { try $0.execute(sql: "CREATE TABLE t (x)") }
        try queue.close()
        #expect(throws: TrailStoreError.notBundle(path: plain, reason: "no tiles table")) {
            try TrailStoreWriter.write([], toBundle: plain)
        }
    }
}
