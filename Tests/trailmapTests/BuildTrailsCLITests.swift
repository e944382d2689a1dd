import Foundation
import Raster
import Testing
import TileGeometry
import TileStore
import TrailMapTestSupport

/// `trailmap build --trails`: vector trails drawn into the tiles (alone, a transparent overlay;
/// beside `--source`, over its tiles) and stored in the bundle, searchable. Real files: a GeoJSON
/// written here, turned into GPX and GeoPackage by ogr2ogr.
@Suite(.blockingThreads) struct BuildTrailsCLITests {
    let dir = TemporaryDirectory()
    static let box = GeoBounds(west: -105.8, south: 40.2, east: -105.4, north: 40.5)
    /// A straight east-west line across the middle of the box, and a short one in its north-east corner.
    static let lineLat = 40.35

    /// The trails as GeoJSON, then as `format` (a driver name) through ogr2ogr.
    func trails(_ format: String? = nil) throws -> String {
        let geojson = dir.file("trails.geojson")
        try """
        {"type":"FeatureCollection","features":[
        {"type":"Feature","properties":{"name":"Bear Lake Trail","highway":"path","sac_scale":"hiking","horse":"no","osm_id":"1"},
         "geometry":{"type":"LineString","coordinates":[[-105.75,\(Self.lineLat)],[-105.60,\(Self.lineLat)],[-105.45,\(Self.lineLat)]]}},
        {"type":"Feature","properties":{"name":"Corner Cutoff","highway":"track","sac_scale":null,"horse":"yes","osm_id":"2"},
         "geometry":{"type":"LineString","coordinates":[[-105.45,40.46],[-105.42,40.48]]}}
        ]}
        """.write(toFile: geojson, atomically: true, encoding: .utf8)
        guard let format else { return geojson }
        let out = dir.file(format == "GPX" ? "trails.gpx" : "trails.gpkg")
        var args = ["-f", format, out, geojson]
        if format == "GPX" { args += ["-nlt", "MULTILINESTRING", "-nln", "tracks"] }
        let made = try CLIRunner.run(args, executable: "/usr/bin/ogr2ogr")
        #expect(made.status == 0, "\(made.stderr)")
        return out
    }

    /// The decoded tile of `bundle` holding (lon, lat) at zoom z, and the pixel of that point.
    func pixel(_ bundle: String, lon: Double, lat: Double, z: Int) throws -> (image: RGBAImage?, x: Int, y: Int) {
        let t = WebMercator.tile(lon: lon, lat: lat, zoom: z)
        let b = t.mercatorBounds, (mx, my) = WebMercator.project(lon: lon, lat: lat)
        let x = min(255, Int((mx - b.minX) / (b.maxX - b.minX) * 256)), y = min(255, Int((b.maxY - my) / (b.maxY - b.minY) * 256))
        guard let data = try BundleReader(path: bundle).tile(t) else { return (nil, x, y) }
        return (try PNGDecoder.decode([UInt8](data)), x, y)
    }

    /// The largest alpha within `radius` pixels of (x, y).
    func alpha(_ image: RGBAImage, _ x: Int, _ y: Int, radius: Int = 2) -> UInt8 {
        var best: UInt8 = 0
        for yy in max(0, y - radius)...min(255, y + radius) {
            for xx in max(0, x - radius)...min(255, x + radius) { best = max(best, image.pixels[(yy * 256 + xx) * 4 + 3]) }
        }
        return best
    }

    @Test(arguments: ["GeoJSON", "GPX", "GPKG"])
    func trailsAloneMakeATransparentOverlayWithSearchableRecords(_ format: String) throws {
        let source = try trails(format == "GeoJSON" ? nil : format)
        let out = dir.file("overlay-\(format).mbtiles")
        // GPX keeps names but not tags (no extensions): read by name alone.
        let preset = format == "GPX" ? [] : ["--trails-preset", "osm"]
        let built = try CLIRunner.run(
            [
                "build", "--trails", source, "--name", "Park trails",
                "--minzoom", "10", "--maxzoom", "13", "--out", out, "--quiet"
            ] + preset)
        #expect(built.status == 0, "\(built.stderr)")
        // Drawn where the line is, transparent a few pixels away from it, no tile far from any trail.
        let on = try pixel(out, lon: -105.6, lat: Self.lineLat, z: 13)
        let image = try #require(on.image)
        #expect(alpha(image, on.x, on.y) == 255)
        #expect(alpha(image, on.x, max(0, on.y - 40), radius: 0) == 0 && alpha(image, on.x, min(255, on.y + 40), radius: 0) == 0)
        #expect(try pixel(out, lon: -105.75, lat: 40.22, z: 13).image == nil, "no trail there: no tile")
        var problems = [String]()
        let meta = try BundleReader(path: out).metadata(problems: &problems)
        #expect(meta.minZoom == 10 && meta.maxZoom == 13 && meta.type == "overlay")
        // The records, searchable with no server; GDAL still opens the bundle.
        let found = try CLIRunner.run(["trails", "search", out, "--q", "bear lake trial", "--json"])
        #expect(found.status == 0 && found.stdout.contains("Bear Lake Trail"), "\(found.stdout)\(found.stderr)")
        if format != "GPX" {
            let horses = try CLIRunner.run(["trails", "search", out, "--bbox=-106,40,-105,41", "--exclude-uses", "horse", "--json"])
            #expect(
                horses.stdout.contains("Bear Lake Trail") && !horses.stdout.contains("Corner Cutoff"), "\(horses.stdout)\(horses.stderr)")
        }
        #expect(try CLIRunner.run([out], executable: "/usr/bin/gdalinfo").status == 0)
    }

    @Test func trailsOverASourceAreDrawnOnItsTilesAndNowhereElse() throws {
        let src = try TestSources.write(in: dir, name: "relief", width: 400, height: 300, bounds: Self.box, color: TestSources.terrain)
        let plain = dir.file("plain.mbtiles"), withTrails = dir.file("trails.mbtiles")
        for (out, extra) in [(plain, [String]()), (withTrails, ["--trails", try trails(), "--trails-preset", "osm"])] {
            let r = try CLIRunner.run(
                ["build", "--source", src, "--name", "Park", "--minzoom", "9", "--maxzoom", "12", "--out", out, "--quiet"] + extra)
            #expect(r.status == 0, "\(r.stderr)")
        }
        let a = try pixel(plain, lon: -105.6, lat: Self.lineLat, z: 12), b = try pixel(withTrails, lon: -105.6, lat: Self.lineLat, z: 12)
        let before = try #require(a.image), after = try #require(b.image)
        let i = (b.y * 256 + b.x) * 4
        #expect(Array(before.pixels[i..<i + 3]) != Array(after.pixels[i..<i + 3]), "the trail is drawn on the relief")
        let far = ((b.y + 60) % 256 * 256 + b.x) * 4
        #expect(Array(before.pixels[far..<far + 4]) == Array(after.pixels[far..<far + 4]), "away from the trail the relief is untouched")
        let found = try CLIRunner.run(["trails", "search", withTrails, "--q", "corner", "--json"])
        #expect(found.stdout.contains("Corner Cutoff"), "\(found.stdout)\(found.stderr)")
        let layers = try BundleReader(path: withTrails).metadataPairs()[BundleLayer.metadataKey] ?? ""
        #expect(layers.contains("\"trails\""), "\(layers)")
    }

    @Test func badTrailsAreRefusedAndNothingIsWritten() throws {
        let out = dir.file("never.mbtiles")
        let points = dir.file("points.geojson")
        try #"""
        {"type":"FeatureCollection","features":[{"type":"Feature","properties":{"name":"A"},
         "geometry":{"type":"Point","coordinates":[-105.5,40.3]}}]}
        """#.write(toFile: points, atomically: true, encoding: .utf8)
        let garbage = dir.file("garbage.geojson")
        try "this is not GeoJSON".write(toFile: garbage, atomically: true, encoding: .utf8)
        for (args, words) in [
            (["--trails", dir.file("missing.geojson")], "missing.geojson"), (["--trails", points], "no line"),
            (["--trails", garbage], "garbage.geojson"), (["--trails", points, "--trails-preset", "shp"], "--trails-preset"),
            (["--trails-join"], "--trails")
        ] {
            let r = try CLIRunner.run(["build", "--name", "X", "--out", out] + args)
            #expect(r.status != 0 && r.stderr.contains(words), "\(args): \(r.stderr)")
            #expect(!FileManager.default.fileExists(atPath: out), "\(args)")
        }
    }
}
