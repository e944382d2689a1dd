import Foundation
import Testing
import TrailMapTestSupport
import TrailSources
import Trails

/// Reading trails from files GDAL writes in the test run: fields mapped, lengths against OGR's.
@Suite(.computeThreads) struct TrailIngestTests {
    let dir = TemporaryDirectory()

    func byKey(_ result: TrailIngestResult) -> [String: TrailRecord] {
        Dictionary(uniqueKeysWithValues: result.trails.map { ($0.source.replacingOccurrences(of: "field:trail_id:", with: ""), $0) })
    }

    @Test func geoJSONRecordsMatchTheSourceAndOGRLengths() throws {
        let src = try TrailFixtures.geoJSON(in: dir)
        let result = try TrailIngest.read(path: src, options: TrailIngestOptions(mapping: try TrailFixtures.mapping(in: dir)))
        let trails = byKey(result)
        #expect(trails.count == TrailFixtures.trails.count)
        let reference = try TrailFixtures.ogrLengths(src, in: dir)
        #expect(reference.count == TrailFixtures.trails.count)
        for (key, length) in reference {
            let t = try #require(trails[key])
            #expect(abs(t.lengthMetres - length) / length < 0.005, "\(key): \(t.lengthMetres) m, OGR \(length) m")
            #expect(t.id == TrailID(identity: "field:trail_id:\(key)"))
        }
        let bear = try #require(trails["RMNP-1"])
        #expect(bear.name == "Bear Lake Trail" && bear.ref == "BL1" && bear.surface == "gravel")
        #expect(bear.difficulty == .easy)
        #expect(bear.allowedUses == [.of(.foot)] && bear.forbiddenUses == TrailUses([.bicycle, .horse]))
        #expect(bear.start == LonLat(lon: -105.645, lat: 40.312) && bear.end == LonLat(lon: -105.635, lat: 40.314))
        #expect(bear.bounds == TrailBox(west: -105.645, south: 40.312, east: -105.635, north: 40.315))
        #expect(trails["RMNP-2"]?.name == "Émerald Lake Trail")
        #expect(trails["RMNP-5"]?.difficulty == .expert)
        #expect(trails["RMNP-5"]?.geometry.parts.count == 2)
        #expect(trails["DEN-1"]?.difficulty == .unknown)
        #expect(trails["RMNP-4"]?.allowedUses == TrailUses([.foot, .bicycle]) && trails["RMNP-4"]?.forbiddenUses == [])
    }

    @Test func geopackageAndProjectedShapefileGiveTheSameTrails() throws {
        let src = try TrailFixtures.geoJSON(in: dir)
        let mapping = try TrailFixtures.mapping(in: dir)
        let reference = try TrailIngest.read(path: src, options: TrailIngestOptions(mapping: mapping)).trails
        let gpkg = try TrailFixtures.convert(src, to: dir.file("trails.gpkg"), format: "GPKG")
        // UTM zone 13N: the reader must transform back to WGS 84.
        let shp = try TrailFixtures.convert(src, to: dir.file("trails.shp"), format: "ESRI Shapefile", ["-t_srs", "EPSG:26913"])
        let fgb = try TrailFixtures.convert(src, to: dir.file("trails.fgb"), format: "FlatGeobuf")
        let kml = try TrailFixtures.convert(src, to: dir.file("trails.kml"), format: "KML")
        for file in [gpkg, shp, fgb] {
            let trails = try TrailIngest.read(path: file, options: TrailIngestOptions(mapping: mapping)).trails
            #expect(Set(trails.map(\.id)) == Set(reference.map(\.id)), "\(file)")
            for t in trails {
                let r = try #require(reference.first { $0.id == t.id })
                #expect(t.name == r.name && t.difficulty == r.difficulty && t.allowedUses == r.allowedUses, "\(file)")
                #expect(abs(t.lengthMetres - r.lengthMetres) < 0.5, "\(file): \(t.name ?? "") \(t.lengthMetres) vs \(r.lengthMetres)")
            }
        }
        // KML keeps the name (and the other fields as extended data); the generic mapping reads names.
        let fromKML = try TrailIngest.read(path: kml).trails
        #expect(Set(fromKML.compactMap(\.name)) == Set(TrailFixtures.trails.map(\.name)))
    }

    @Test func gpxTracksAndRoutesAreRead() throws {
        let src = try TrailFixtures.geoJSON(in: dir)
        let tracks = try TrailFixtures.convert(
            src, to: dir.file("tracks.gpx"), format: "GPX",
            ["-lco", "FORCE_GPX_TRACK=YES", "-nlt", "MULTILINESTRING", "-select", "name"])
        let singles = dir.file("singles.geojson")
        try TrailFixtures.convert(src, to: singles, format: "GeoJSON", ["-where", "trail_id <> 'RMNP-5'"])
        let routes = try TrailFixtures.convert(singles, to: dir.file("routes.gpx"), format: "GPX", ["-select", "name"])
        let lengths = try TrailFixtures.ogrLengths(src, in: dir)
        let names = Dictionary(uniqueKeysWithValues: TrailFixtures.trails.map { ($0.name, $0.key) })
        for (file, count) in [(tracks, 6), (routes, 5)] {
            let trails = try TrailIngest.read(path: file).trails
            #expect(trails.count == count, "\(file)")
            for t in trails {
                let key = try #require(t.name.flatMap { names[$0] })
                let ogr = try #require(lengths[key])
                #expect(abs(t.lengthMetres - ogr) / ogr < 0.005, "\(file) \(key)")
            }
        }
        // The id of a trail without an id field comes from its name, ref and geometry: the same in both files.
        let a = try TrailIngest.read(path: tracks).trails.first { $0.name == "Bear Lake Trail" }
        let b = try TrailIngest.read(path: routes).trails.first { $0.name == "Bear Lake Trail" }
        #expect(a?.id != nil && a?.id == b?.id)
    }

    @Test func openStreetMapPresetMapsTagsAndFilters() throws {
        let osm = try TrailFixtures.osm(in: dir)
        let result = try TrailIngest.read(path: osm)
        let trails = Dictionary(uniqueKeysWithValues: result.trails.map { ($0.source, $0) })
        #expect(Set(trails.keys) == ["osm:way:101", "osm:way:102", "osm:way:103", "osm:way:106", "osm:way:107"])
        #expect(result.filteredOut == 2)
        let sky = try #require(trails["osm:way:101"])
        #expect(sky.id == TrailID(identity: "osm:way:101"))
        #expect(sky.difficulty == .moderate && sky.surface == "ground")
        #expect(sky.allowedUses == [.of(.foot)] && sky.forbiddenUses == TrailUses([.bicycle, .horse]))
        #expect(trails["osm:way:102"]?.difficulty == .hard)
        #expect(trails["osm:way:102"]?.allowedUses == [.of(.horse)])
        #expect(trails["osm:way:103"]?.allowedUses == [.of(.bicycle)] && trails["osm:way:103"]?.forbiddenUses == [.of(.foot)])
        let cafe = try #require(trails["osm:way:106"])
        #expect(cafe.name == "Café Walk" && cafe.ref == "F1" && cafe.difficulty == .expert && cafe.allowedUses == [.of(.foot)])
        // sac_scale comes before mtb:scale.
        #expect(trails["osm:way:107"]?.difficulty == .easy)
    }

    @Test func openStreetMapPBFReadsAsItsXML() throws {
        let osm = try TrailFixtures.osm(in: dir)
        let pbf = dir.file("park.osm.pbf")
        // osmium (Debian osmium-tool) writes the PBF; GDAL cannot.
        try GDALTools.run("osmium", ["cat", osm, "-o", pbf])
        let fromXML = try TrailIngest.read(path: osm).trails, fromPBF = try TrailIngest.read(path: pbf).trails
        #expect(fromPBF.count == 5)
        #expect(Set(fromPBF.map(\.id)) == Set(fromXML.map(\.id)))
        for t in fromPBF {
            let x = try #require(fromXML.first { $0.id == t.id })
            #expect(
                t.name == x.name && t.difficulty == x.difficulty && t.allowedUses == x.allowedUses && t.forbiddenUses == x.forbiddenUses)
            #expect(abs(t.lengthMetres - x.lengthMetres) < 0.05)
        }
    }

    @Test func joiningSegmentsOfANamedTrail() throws {
        let osm = try TrailFixtures.osm(in: dir)
        let separate = try TrailIngest.read(path: osm).trails
        let result = try TrailIngest.read(path: osm, options: TrailIngestOptions(join: true))
        #expect(result.trails.count == 4 && result.joinedTrails == 1)
        let sky = try #require(result.trails.first { $0.name == "Sky Pond Trail" })
        let parts = separate.filter { $0.name == "Sky Pond Trail" }
        #expect(sky.id == TrailID(identity: "join:" + parts.map(\.id).sorted().map(\.description).joined(separator: ",")))
        #expect(sky.geometry.parts.count == 1 && sky.geometry.pointCount == 4)
        #expect(abs(sky.lengthMetres - parts.reduce(0) { $0 + $1.lengthMetres }) < 0.01)
        #expect(sky.difficulty == .moderate)
        #expect(sky.allowedUses == [] && sky.forbiddenUses == TrailUses([.bicycle, .horse]))
    }

    @Test func joiningWithinTheToleranceOnly() throws {
        // Ridge Trail: segment 2 starts 3 m north of segment 1's end and runs backwards (its end
        // is the far point); segment 3 starts 20 m beyond segment 2's far end. Another trail
        // touches segment 1 but has another name.
        let path = dir.file("ridge.geojson")
        try """
        {"type":"FeatureCollection","features":[
        {"type":"Feature","properties":{"name":"Ridge Trail"},
         "geometry":{"type":"LineString","coordinates":[[-105.60,40.30],[-105.59,40.30]]}},
        {"type":"Feature","properties":{"name":"Ridge Trail"},
         "geometry":{"type":"LineString","coordinates":[[-105.58,40.30],[-105.59,40.300027]]}},
        {"type":"Feature","properties":{"name":"Ridge Trail"},
         "geometry":{"type":"LineString","coordinates":[[-105.58,40.30018],[-105.57,40.30]]}},
        {"type":"Feature","properties":{"name":"Spur"},"geometry":{"type":"LineString","coordinates":[[-105.59,40.30],[-105.59,40.31]]}}
        ]}
        """.write(toFile: path, atomically: true, encoding: .utf8)
        let separate = try TrailIngest.read(path: path).trails
        let result = try TrailIngest.read(path: path, options: TrailIngestOptions(join: true))
        #expect(result.trails.count == 3 && result.joinedTrails == 1)
        let ridge = result.trails.filter { $0.name == "Ridge Trail" }.sorted { $0.lengthMetres > $1.lengthMetres }
        #expect(ridge.count == 2)
        let joined = try #require(ridge.first)
        #expect(joined.geometry.parts.count == 1, "chained into one line, the second segment reversed")
        #expect(joined.start == LonLat(lon: -105.60, lat: 40.30) && joined.end == LonLat(lon: -105.58, lat: 40.30))
        let expected =
            separate[0].lengthMetres + separate[1].lengthMetres
            + Geodesic.distance(LonLat(lon: -105.59, lat: 40.30), LonLat(lon: -105.59, lat: 40.300027))
        #expect(abs(joined.lengthMetres - expected) < 0.01)
        var tight = TrailIngestOptions(join: true)
        tight.joinToleranceMetres = 2
        #expect(try TrailIngest.read(path: path, options: tight).joinedTrails == 0)
    }
}
