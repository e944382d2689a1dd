import Foundation
import Testing
import TrailMapTestSupport

/// `trailmap trails add/search/show` and `trailmap regions trails search/show` on real files.
@Suite(.blockingThreads) struct TrailsCLITests {
    let dir = TemporaryDirectory()

    /// Three trails near Bear Lake, Colorado, as GeoJSON.
    func source() throws -> String {
        let path = dir.file("park.geojson")
        try """
        {"type":"FeatureCollection","features":[
        {"type":"Feature","properties":{"ID":"1","NAME":"Bear Lake Trail","LEVEL":"1","HORSES":"no"},
         "geometry":{"type":"LineString","coordinates":[[-105.645,40.312],[-105.640,40.315],[-105.635,40.314]]}},
        {"type":"Feature","properties":{"ID":"2","NAME":"Émerald Lake Trail","LEVEL":"2","HORSES":"yes"},
         "geometry":{"type":"LineString","coordinates":[[-105.647,40.311],[-105.660,40.310],[-105.670,40.307]]}},
        {"type":"Feature","properties":{"ID":"3","NAME":"Longs Peak Trail","LEVEL":"3","HORSES":"no"},
         "geometry":{"type":"LineString","coordinates":[[-105.560,40.275],[-105.580,40.265],[-105.600,40.260],[-105.615,40.255]]}}
        ]}
        """.write(toFile: path, atomically: true, encoding: .utf8)
        let mapping = dir.file("mapping.json")
        try """
        {"id": "ID", "name": "NAME", "difficulty": ["LEVEL"],
         "difficultyValues": {"LEVEL": {"1": "easy", "2": "moderate", "3": "hard"}},
         "uses": {"horse": "HORSES"}, "useValues": {"yes": "allowed", "no": "forbidden"}}
        """.write(toFile: mapping, atomically: true, encoding: .utf8)
        return path
    }

    func bundle(_ name: String = "park.mbtiles") throws -> String {
        let path = dir.file(name)
        try TestBundle.variant(.png, to: path)
        return path
    }

    func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    @Test func addSearchAndShow() throws {
        let src = try source(), bundle = try bundle()
        let add = try CLIRunner.run(["trails", "add", bundle, "--trails", src, "--mapping", dir.file("mapping.json")])
        #expect(add.status == 0, "\(add.stderr)")
        #expect(add.stdout.contains("3 trails from 3 line features"))
        let verify = try CLIRunner.run(["trails", "verify", bundle])
        #expect(verify.status == 0 && verify.stdout.contains("trails OK"), "\(verify.stdout)\(verify.stderr)")

        let typo = try CLIRunner.run(["trails", "search", bundle, "--q", "Bear Lake Trial", "--json"])
        #expect(typo.status == 0, "\(typo.stderr)")
        let found = try #require(try json(typo.stdout)["trails"] as? [[String: Any]])
        #expect(found.map { $0["name"] as? String } == ["Bear Lake Trail"])
        let id = try #require(found.first?["id"] as? String)

        let near = try CLIRunner.run([
            "trails", "search", bundle, "--near", "40.312,-105.645", "--radius-km", "1",
            "--exclude-uses", "horse", "--json"
        ])
        #expect(near.status == 0, "\(near.stderr)")
        let nearby = try #require(try json(near.stdout)["trails"] as? [[String: Any]])
        #expect(nearby.map { $0["name"] as? String } == ["Bear Lake Trail"], "Emerald Lake allows horses")

        let moderate = try CLIRunner.run(["trails", "search", bundle, "--difficulty", "moderate,hard", "--sort", "length"])
        #expect(moderate.status == 0 && moderate.stdout.hasPrefix("2 trails"), "\(moderate.stdout)\(moderate.stderr)")
        #expect(moderate.stdout.split(separator: "\n").dropFirst().first?.contains("Longs Peak Trail") == true)

        let gpx = dir.file("bear.gpx"), geojson = dir.file("bear.geojson")
        let show = try CLIRunner.run(["trails", "show", bundle, id, "--gpx", gpx, "--geojson", geojson])
        #expect(show.status == 0, "\(show.stderr)")
        #expect(
            show.stdout.contains("Bear Lake Trail") && show.stdout.contains("difficulty: easy") && show.stdout.contains("forbidden: horse"))
        // GDAL reads both files back: one track of three points, one feature.
        let track = try GDALTools.run("ogrinfo", ["-q", "-sql", "SELECT * FROM track_points", gpx])
        #expect(track.components(separatedBy: "OGRFeature(").count - 1 == 3, "\(track)")
        let feature = try GDALTools.run("ogrinfo", ["-q", "-al", geojson])
        #expect(feature.contains("Bear Lake Trail") && feature.contains("LINESTRING"))
    }

    @Test func badInputFailsClearlyAndWritesNothing() throws {
        let bundle = try bundle()
        let before = try Data(contentsOf: URL(fileURLWithPath: bundle))
        let notes = dir.file("notes.txt")
        try "hello".write(toFile: notes, atomically: true, encoding: .utf8)
        let add = try CLIRunner.run(["trails", "add", bundle, "--trails", notes])
        #expect(add.status != 0)
        #expect(add.stderr.contains(notes) && add.stderr.contains("GDAL cannot open it"), "\(add.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: bundle)) == before)

        let src = try source()
        let missing = dir.file("missing-field.json")
        try #"{"name": "TRAIL_NAME"}"#.write(toFile: missing, atomically: true, encoding: .utf8)
        let mapped = try CLIRunner.run(["trails", "add", bundle, "--trails", src, "--mapping", missing])
        #expect(mapped.status != 0 && mapped.stderr.contains("no field TRAIL_NAME"), "\(mapped.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: bundle)) == before)

        let noBundle = try CLIRunner.run(["trails", "add", dir.file("none.mbtiles"), "--trails", src])
        #expect(noBundle.status != 0 && noBundle.stderr.contains("none.mbtiles: no such bundle"), "\(noBundle.stderr)")
        #expect(try CLIRunner.run(["trails", "add", bundle, "--trails", src, "--mapping", dir.file("mapping.json")]).status == 0)
        let contradictory = try CLIRunner.run(["trails", "search", bundle, "--min-length-km", "5", "--max-length-km", "2"])
        #expect(
            contradictory.status != 0 && contradictory.stderr.contains("--min-length-km and --max-length-km"), "\(contradictory.stderr)")
        let both = try CLIRunner.run(["trails", "search", bundle, "--near", "40.3,-105.6", "--radius-km", "2", "--bbox", "-106,40,-105,41"])
        #expect(both.status != 0 && both.stderr.contains("--near and --bbox"), "\(both.stderr)")
        let radius = try CLIRunner.run(["trails", "search", bundle, "--near", "40.3,-105.6", "--radius-km", "0"])
        #expect(radius.status != 0 && radius.stderr.contains("--radius-km"), "\(radius.stderr)")
        let other = try self.bundle("other.mbtiles")
        let noTrails = try CLIRunner.run(["trails", "verify", other])
        #expect(noTrails.status != 0 && noTrails.stderr.contains("holds no trails"), "\(noTrails.stderr)")
        let searchBoth = try CLIRunner.run(["trails", "search", bundle, other, "--q", "bear"])
        #expect(searchBoth.status == 0 && searchBoth.stdout.hasPrefix("1 trail\n"), "\(searchBoth.stdout)")
        #expect(searchBoth.stderr.contains("\(other): holds no trails"), "\(searchBoth.stderr)")
        let unknown = try CLIRunner.run(["trails", "show", bundle, "0123456789abcdef"])
        #expect(unknown.status != 0 && unknown.stderr.contains("no trail 0123456789abcdef"), "\(unknown.stderr)")
    }

    @Test func installedRegionsAreSearchedOffline() throws {
        let tiles = dir.file("Tiles")
        try FileManager.default.createDirectory(atPath: tiles, withIntermediateDirectories: true)
        let src = try source()
        let park = try bundle("Tiles/park.mbtiles")
        _ = try bundle("Tiles/plain.mbtiles")
        #expect(try CLIRunner.run(["trails", "add", park, "--trails", src, "--mapping", dir.file("mapping.json")]).status == 0)
        let search = try CLIRunner.run(["regions", "trails", "search", "--tiles", tiles, "--q", "emerald", "--json"])
        #expect(search.status == 0, "\(search.stderr)")
        let found = try #require(try json(search.stdout)["trails"] as? [[String: Any]])
        #expect(found.map { $0["name"] as? String } == ["Émerald Lake Trail"])
        #expect((found.first?["bundles"] as? [String]) == [park])
        let id = try #require(found.first?["id"] as? String)
        let show = try CLIRunner.run(["regions", "trails", "show", id, "--tiles", tiles, "--json"])
        #expect(show.status == 0 && show.stdout.contains("\"difficulty\" : \"moderate\""), "\(show.stdout)\(show.stderr)")
    }

    @Test func extractKeepsTheTrailsOfTheBox() throws {
        let src = try source(), bundle = try bundle()
        #expect(try CLIRunner.run(["trails", "add", bundle, "--trails", src, "--mapping", dir.file("mapping.json")]).status == 0)
        // The box holds Bear Lake and Emerald Lake's starts (west of -105.63), not Longs Peak (east and south).
        let out = dir.file("cut.mbtiles")
        let extract = try CLIRunner.run(["bundle", "extract", bundle, "--bbox", "-105.68,40.30,-105.63,40.32", "--out", out])
        #expect(extract.status == 0 && extract.stdout.contains("2 trails"), "\(extract.stdout)\(extract.stderr)")
        let search = try CLIRunner.run(["trails", "search", out, "--json", "--sort", "name"])
        let found = try #require(try json(search.stdout)["trails"] as? [[String: Any]])
        #expect(found.map { $0["name"] as? String } == ["Bear Lake Trail", "Émerald Lake Trail"])
        #expect(try CLIRunner.run(["trails", "verify", out]).status == 0)
    }

    @Test func bundleVerifyChecksTheTrails() throws {
        let src = try source(), bundle = try bundle()
        #expect(try CLIRunner.run(["trails", "add", bundle, "--trails", src, "--mapping", dir.file("mapping.json")]).status == 0)
        #expect(try CLIRunner.run(["bundle", "verify", bundle]).status == 0)
        let p = ChildProcess()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = [
            "python3", "-c",
            """
            import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute('DELETE FROM trails_rtree WHERE id = (SELECT min(id) FROM \
            trails)'); c.commit()
            """,
            bundle
        ]
        try p.run()
        p.waitUntilExit()
        #expect(p.terminationStatus == 0)
        let verify = try CLIRunner.run(["bundle", "verify", bundle])
        #expect(verify.status != 0 && verify.stderr.contains("trails: trails_rtree indexes 2 of 3 trails"), "\(verify.stderr)")
    }
}
