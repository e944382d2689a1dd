import Foundation
import Testing
import TrailMapTestSupport
import TrailSources
import Trails

/// Trail sources written by the test run: a GeoJSON of six trails near Bear Lake, Colorado (one
/// far off, near Denver), converted by ogr2ogr to other formats, and an OpenStreetMap XML file.
enum TrailFixtures {
    /// The test point: the start of the Bear Lake Trail (latitude, longitude 40.312, -105.645).
    static let bearLake = LonLat(lon: -105.645, lat: 40.312)

    struct Trail {
        var key: String
        var name: String
        var ref: String?
        var rating: String?
        var hike: String?, bike: String?, horse: String?
        var surface: String
        var parts: [[(Double, Double)]]
    }

    static let trails: [Trail] = [
        Trail(
            key: "RMNP-1", name: "Bear Lake Trail", ref: "BL1", rating: "green", hike: "Y", bike: "N", horse: "N", surface: "gravel",
            parts: [[(-105.645, 40.312), (-105.640, 40.315), (-105.635, 40.314)]]),
        Trail(
            key: "RMNP-2", name: "Émerald Lake Trail", rating: "blue", hike: "Y", bike: "N", horse: "Y", surface: "dirt",
            parts: [[(-105.647, 40.311), (-105.660, 40.310), (-105.670, 40.307)]]),
        Trail(
            key: "RMNP-3", name: "Longs Peak Trail", rating: "black", hike: "Y", bike: "N", horse: "N", surface: "rock",
            parts: [[(-105.560, 40.275), (-105.580, 40.265), (-105.600, 40.260), (-105.615, 40.255)]]),
        Trail(
            key: "RMNP-4", name: "Mill Creek Bike Path", rating: "blue", hike: "Y", bike: "Y", surface: "paved",
            parts: [[(-105.630, 40.330), (-105.600, 40.340)]]),
        Trail(
            key: "RMNP-5", name: "Glacier Gorge", rating: "double black", hike: "Y", surface: "rock",
            parts: [[(-105.638, 40.300), (-105.638, 40.290)], [(-105.638, 40.288), (-105.640, 40.280)]]),
        Trail(
            key: "DEN-1", name: "Cherry Creek Trail", hike: "Y", bike: "Y", surface: "paved",
            parts: [[(-104.95, 39.70), (-104.90, 39.65)]])
    ]

    /// The mapping of the GeoJSON's fields.
    static let mappingJSON = """
        {"id": "trail_id", "name": "name", "ref": "ref", "surface": "surface", "difficulty": ["rating"],
         "difficultyValues": {"rating": {"green": "easy", "blue": "moderate", "black": "hard", "double black": "expert"}},
         "uses": {"foot": "hike", "bicycle": "bike", "horse": "horse"}, "useValues": {"y": "allowed", "n": "forbidden"}}
        """

    static func mapping(in dir: TemporaryDirectory) throws -> TrailFieldMapping {
        let path = dir.file("mapping.json")
        try mappingJSON.write(toFile: path, atomically: true, encoding: .utf8)
        return try TrailFieldMapping.load(path: path)
    }

    static func json(_ s: String?) -> String {
        guard let s else { return "null" }
        return "\"" + s.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }

    /// Writes the trails as `trails.geojson` (EPSG:4326); returns its path.
    static func geoJSON(in dir: TemporaryDirectory) throws -> String {
        let features = trails.map { t in
            let coords = t.parts.map { "[" + $0.map { "[\($0.0),\($0.1)]" }.joined(separator: ",") + "]" }
            let geometry =
                t.parts.count == 1
                ? "{\"type\":\"LineString\",\"coordinates\":\(coords[0])}"
                : "{\"type\":\"MultiLineString\",\"coordinates\":[\(coords.joined(separator: ","))]}"
            return """
                {"type":"Feature","properties":{"trail_id":\(json(t.key)),"name":\(json(t.name)),"ref":\(json(t.ref)),\
                "rating":\(json(t.rating)),"hike":\(json(t.hike)),"bike":\(json(t.bike)),"horse":\(json(t.horse)),\
                "surface":\(json(t.surface))},"geometry":\(geometry)}
                """
        }
        let path = dir.file("trails.geojson")
        try "{\"type\":\"FeatureCollection\",\"features\":[\n\(features.joined(separator: ",\n"))\n]}\n"
            .write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// `ogr2ogr -f FORMAT dst src args...`; returns `dst`.
    @discardableResult
    static func convert(_ src: String, to dst: String, format: String, _ args: [String] = []) throws -> String {
        try GDALTools.run("ogr2ogr", ["-f", format, dst, src] + args)
        return dst
    }

    /// Each trail's length in metres as OGR measures it: the lines reprojected by ogr2ogr to an
    /// azimuthal equidistant projection centred on the park, measured by `ST_Length` (SQLite dialect).
    static func ogrLengths(_ geojson: String, in dir: TemporaryDirectory) throws -> [String: Double] {
        let projected = dir.file("projected.gpkg")
        try? FileManager.default.removeItem(atPath: projected)
        try convert(
            geojson, to: projected, format: "GPKG",
            ["-t_srs", "+proj=aeqd +lat_0=40.1 +lon_0=-105.3 +datum=WGS84 +units=m", "-nln", "projected"])
        let out = try GDALTools.run(
            "ogrinfo",
            [
                "-q", "-dialect", "SQLite", "-sql",
                "SELECT trail_id, ST_Length(geom) AS len FROM projected", projected
            ])
        var lengths = [String: Double]()
        var key: String?
        for line in out.split(separator: "\n") {
            let t = line.trimmingCharacters(in: .whitespaces)
            if t.hasPrefix("trail_id (String) = ") { key = String(t.dropFirst("trail_id (String) = ".count)) }
            if t.hasPrefix("len (Real) = "), let key, let v = Double(t.dropFirst("len (Real) = ".count)) { lengths[key] = v }
        }
        return lengths
    }

    /// An OpenStreetMap XML file of seven ways (two not trails) with tags, written here.
    static func osm(in dir: TemporaryDirectory) throws -> String {
        let nodes: [(Int, Double, Double)] = [
            (1, 40.3000, -105.7000), (2, 40.3050, -105.6950), (3, 40.3100, -105.6900),
            (4, 40.2900, -105.6800), (5, 40.2950, -105.6700),
            (6, 40.2800, -105.6600), (7, 40.2850, -105.6500),
            (8, 40.3300, -105.6000), (9, 40.3350, -105.5900),
            (10, 40.3400, -105.6100), (11, 40.3450, -105.6050),
            (12, 40.2700, -105.6400), (13, 40.2750, -105.6300),
            (14, 40.3150, -105.6850)
        ]
        let ways: [(Int, [Int], [(String, String)])] = [
            (
                101, [1, 2, 3],
                [
                    ("highway", "path"), ("name", "Sky Pond Trail"), ("sac_scale", "mountain_hiking"), ("foot", "designated"),
                    ("bicycle", "no"), ("horse", "no"), ("surface", "ground")
                ]
            ),
            (102, [4, 5], [("highway", "bridleway"), ("name", "Horse Loop"), ("mtb:scale", "3")]),
            (103, [6, 7], [("highway", "cycleway"), ("name", "Bike Way"), ("foot", "no")]),
            (104, [8, 9], [("highway", "residential"), ("name", "Main Street")]),
            (105, [10, 11], [("waterway", "stream"), ("name", "Glacier Creek")]),
            (106, [12, 13], [("highway", "footway"), ("name", "Café Walk"), ("ref", "F1"), ("sac_scale", "demanding_alpine_hiking")]),
            (107, [3, 14], [("highway", "path"), ("name", "Sky Pond Trail"), ("sac_scale", "hiking"), ("mtb:scale", "1")])
        ]
        var xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<osm version=\"0.6\" generator=\"trailmap-tests\">\n"
        for (id, lat, lon) in nodes {
            xml += "  <node id=\"\(id)\" version=\"1\" lat=\"\(lat)\" lon=\"\(lon)\"/>\n"
        }
        for (id, refs, tags) in ways {
            xml += "  <way id=\"\(id)\" version=\"1\">\n"
            for r in refs { xml += "    <nd ref=\"\(r)\"/>\n" }
            for (k, v) in tags { xml += "    <tag k=\"\(k)\" v=\"\(v)\"/>\n" }
            xml += "  </way>\n"
        }
        xml += "</osm>\n"
        let path = dir.file("park.osm")
        try xml.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// A PNG bundle to hold trails.
    static func bundle(in dir: TemporaryDirectory, name: String = "region.mbtiles") throws -> String {
        let path = dir.file(name)
        try TestBundle.variant(.png, to: path)
        return path
    }
}
