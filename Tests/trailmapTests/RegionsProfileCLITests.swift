import Foundation
import Terrain
import Testing
import TileGeometry
import TrailMapTestSupport

/// `trailmap regions profile`: offline profiles from an installed terrain bundle (made by GDAL:
/// a ramp rising north at 10,000 m per degree, in the southern and western hemispheres, so every
/// coordinate is negative), no server anywhere.
@Suite(.blockingThreads) struct RegionsProfileCLITests {
    static let dir = TemporaryDirectory()
    static let tiles: String = {
        let folder = dir.file("Tiles")
        try! FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let bounds = GeoBounds(west: -70.70, south: -34.00, east: -70.50, north: -33.80)
        let grid = TerrainFixtures.Grid(crs: "EPSG:4326", west: -70.70, north: -33.80, pixel: 0.0005, columns: 400, rows: 400)
        let dem = try! TerrainFixtures.dem(grid, at: dir.file("andes.tif")) { _, lat in 1000 + (lat + 34) * 10_000 }
        try! TerrainFixtures.terrainBundle(
            from: dem, bounds: bounds, zoom: 12, encoding: .terrarium,
            to: (folder as NSString).appendingPathComponent("andes-terrain.mbtiles"))
        return folder
    }()

    static func run(_ args: [String]) throws -> CLIRunner.Result {
        try CLIRunner.run(["regions", "profile"] + args + ["--tiles", tiles])
    }

    /// A line northward: 0.02 degree of rise is 200 m of ascent, none descended; the text has the
    /// figures and a chart, the JSON the server's shape.
    @Test func lineWithNegativeCoordinates() throws {
        let text = try Self.run(["--line", "-33.95,-70.6;-33.93,-70.6", "--spacing", "20"])
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stdout.contains("Ascent:    200 m"), "\(text.stdout)")
        #expect(text.stdout.contains("Descent:   0 m"))
        #expect(text.stdout.contains("█"))
        let json = try Self.run(["--line=-33.95,-70.6;-33.93,-70.6", "--json"])
        #expect(json.status == 0, "\(json.stderr)")
        let p = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(abs((p["ascentM"] as? Double ?? 0) - 200) < 0.5)
        #expect(p["spacingM"] as? Double == ProfileOptions.defaultSpacing)
        let samples = try #require(p["samples"] as? [[String: Any]])
        #expect(samples.first?["lat"] as? Double == -33.95 && samples.first?["gradePct"] is NSNull)
        #expect(Set(["lengthM", "descentM", "maxGradePct", "minGradePct", "lowest", "highest"]).isSubset(of: Set(p.keys)))
    }

    /// A GPX track down and up again.
    @Test func gpxTrack() throws {
        let gpx = Self.dir.file("walk.gpx")
        try """
        <?xml version="1.0"?>
        <gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>
        <trkpt lat="-33.90" lon="-70.62"/><trkpt lat="-33.91" lon="-70.61"/><trkpt lat="-33.89" lon="-70.60"/>
        </trkseg></trk></gpx>
        """.write(toFile: gpx, atomically: true, encoding: .utf8)
        let r = try Self.run(["--gpx", gpx, "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        let p = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        #expect(abs((p["descentM"] as? Double ?? 0) - 100) < 1 && abs((p["ascentM"] as? Double ?? 0) - 200) < 1)
    }

    /// Bad input: a message naming the option, a non-zero exit, nothing on stdout.
    @Test func badInput() throws {
        let cases: [([String], String)] = [
            (["--line", "-33.95,-70.6"], "at least 2 points"),
            (["--line", "91,-70.6;-33.93,-70.6"], "latitude 91"),
            (["--line", "-33.95,-70.6;-33.93,-181"], "longitude -181"),
            (["--line", "-33.95;-33.93,-70.6"], "not LAT,LON"),
            (["--line", "40,10;40.1,10.1"], "outside every installed terrain"),
            (["--gpx", Self.dir.file("missing.gpx")], "cannot be read"),
            (["--trail", "0123456789abcdef"], "no installed region holds"),
            (["--line", "-33.95,-70.6;-33.93,-70.6", "--gpx", "x.gpx"], "exactly one"),
            ([], "exactly one")
        ]
        for (args, text) in cases {
            let r = try Self.run(args)
            #expect(r.status != 0, "\(args)")
            #expect(r.stderr.contains(text), "\(args): \(r.stderr)")
            #expect(r.stdout.isEmpty)
        }
        // A GPX of more points than the limit is refused while it is read.
        let many = Self.dir.file("many.gpx")
        let points = String(repeating: "<trkpt lat=\"-33.95\" lon=\"-70.6\"/>", count: ProfileOptions().maxPoints + 1)
        try "<gpx><trk><trkseg>\(points)</trkseg></trk></gpx>".write(toFile: many, atomically: true, encoding: .utf8)
        let r = try Self.run(["--gpx", many])
        #expect(r.status != 0 && r.stderr.contains("more than \(ProfileOptions().maxPoints) points"), "\(r.stderr)")
    }
}
