import Foundation
import Raster
import Terrain
import Testing
import TileGeometry
import TileStore
import TrailMapTestSupport
import Trails

/// `trailmap build --dem`: a hillshade bundle, a colour relief, terrain tiles with their
/// `encoding`, a terrain manifest layer; bad input gets a message naming the file or option, a
/// non-zero exit and no bundle. The DEM is an ASCII grid turned into a GeoTIFF by gdal_translate.
@Suite(.blockingThreads) struct BuildTerrainCLITests {
    let dir = TemporaryDirectory()

    /// A 100 × 100 DEM of 30 m pixels in UTM 13N rising 0.1 m a metre eastwards.
    func dem() throws -> String {
        var text = "ncols 100\nnrows 100\nxllcorner 450000\nyllcorner 4420000\ncellsize 30\nNODATA_value -9999\n"
        for _ in 0..<100 { text += (0..<100).map { String(2000 + 3 * $0) }.joined(separator: " ") + "\n" }
        try text.write(toFile: dir.file("dem.asc"), atomically: true, encoding: .utf8)
        let made = try CLIRunner.run(
            ["-q", "-a_srs", "EPSG:32613", "-ot", "Int16", dir.file("dem.asc"), dir.file("dem.tif")],
            executable: "/usr/bin/gdal_translate")
        #expect(made.status == 0, "\(made.stderr)")
        return dir.file("dem.tif")
    }

    @Test func hillshadeReliefAndTerrainTilesFromTheCommandLine() throws {
        let dem = try dem()
        try "2000 0 128 0\n2300 255 255 255\n".write(toFile: dir.file("ramp.txt"), atomically: true, encoding: .utf8)
        let runs: [(String, [String])] = [
            ("hs", ["--hillshade", "--hillshade-mode", "combined"]),
            ("relief", ["--color-relief", dir.file("ramp.txt"), "--hillshade", "--terrain-opacity", "0.5"]),
            ("rgb", ["--format", "terrain-rgb", "--tile-size", "512"]),
            ("terrarium", ["--format", "terrarium", "--terrain-image", "webp"])
        ]
        for (name, args) in runs {
            let out = dir.file("\(name).mbtiles")
            let r = try CLIRunner.run(
                ["build", "--dem", dem, "--name", name, "--minzoom", "11", "--maxzoom", "12", "--out", out, "-q"] + args)
            #expect(r.status == 0, "\(name): \(r.stderr)")
            let meta = try BundleReader(path: out).metadataPairs()
            #expect(meta["encoding"] == [("rgb", "mapbox"), ("terrarium", "terrarium")].first { $0.0 == name }?.1, "\(name)")
            #expect(meta["format"] == (name == "terrarium" ? "webp" : "png"))
            #expect(meta["trailmap:tilesize"] == (name == "rgb" ? "512" : "256"))
            // The DEM's middle (UTM 451500 E, 4421500 N), its tile at zoom 12 and its pixel there.
            let (lon, lat) = (-105.5687, 39.9441)
            let t = WebMercator.tile(lon: lon, lat: lat, zoom: 12)
            let image = try TileDecoder.decode([UInt8](try #require(try BundleReader(path: out).tile(t), "\(name): tile \(t)")))
            let b = t.mercatorBounds, m = WebMercator.project(lon: lon, lat: lat)
            let px = Int((m.x - b.minX) / (b.maxX - b.minX) * Double(image.width)),
                py = Int((b.maxY - m.y) / (b.maxY - b.minY) * Double(image.height))
            let middle = (py * image.width + px) * 4
            #expect(image.pixels[middle + 3] == 255, "\(name): opaque inside the DEM")
            if name == "rgb" {
                let e = TerrainEncoding.mapbox.decode(
                    red: image.pixels[middle], green: image.pixels[middle + 1], blue: image.pixels[middle + 2])
                #expect(e > 2000 && e < 2300, "elevation \(e)")
            }
            if name == "relief" { #expect(image.pixels[middle] != image.pixels[middle + 1], "coloured, not grey") }
        }
    }

    /// `--source` with `--dem --hillshade` (and a manifest's terrain layer with a blend) shade the
    /// imagery in one bundle: at the DEM's middle the imagery's colour under the hillshade
    /// bundle's shade, multiplied or drawn over; beyond the DEM the imagery's colour.
    @Test func hillshadeBlendedIntoImagery() throws {
        let dem = try dem(), img = dir.file("img.tif")
        let made = try CLIRunner.run(
            [
                "-q", "-of", "GTiff", "-outsize", "200", "200", "-bands", "3", "-burn", "200", "-burn", "150", "-burn", "100",
                "-a_srs", "EPSG:4326", "-a_ullr", "-105.62", "39.98", "-105.52", "39.91", img
            ],
            executable: "/usr/bin/gdal_create")
        #expect(made.status == 0, "\(made.stderr)")
        let common = ["--name", "x", "--minzoom", "12", "--maxzoom", "12", "-q"]
        #expect(try CLIRunner.run(["build", "--dem", dem, "--hillshade", "--out", dir.file("hs.mbtiles")] + common).status == 0)
        let multiply = try CLIRunner.run(["build", "--source", img, "--dem", dem, "--hillshade", "--out", dir.file("mul.mbtiles")] + common)
        #expect(multiply.status == 0, "\(multiply.stderr)")
        let manifest = dir.file("over.json")
        try """
        {"name": "over", "minzoom": 12, "maxzoom": 12, "layers": [
          {"name": "imagery", "sources": ["img.tif"]},
          {"name": "relief", "kind": "terrain", "sources": ["dem.tif"], "hillshade": true, "blend": "over", "opacity": 0.5}
        ]}
        """.write(toFile: manifest, atomically: true, encoding: .utf8)
        let over = try CLIRunner.run(["build", "--manifest", manifest, "--out", dir.file("over.mbtiles"), "-q"])
        #expect(over.status == 0, "\(over.stderr)")
        /// The pixel at a point of a bundle's zoom-12 tile.
        func pixel(_ bundle: String, lon: Double, lat: Double) throws -> [UInt8] {
            let t = WebMercator.tile(lon: lon, lat: lat, zoom: 12)
            let image = try TileDecoder.decode(
                [UInt8](try #require(try BundleReader(path: dir.file(bundle)).tile(t), "\(bundle): tile \(t)")))
            let b = t.mercatorBounds, m = WebMercator.project(lon: lon, lat: lat)
            let px = Int((m.x - b.minX) / (b.maxX - b.minX) * 256), py = Int((b.maxY - m.y) / (b.maxY - b.minY) * 256)
            return Array(image.pixels[(py * 256 + px) * 4..<(py * 256 + px) * 4 + 4])
        }
        let shade = Double(try pixel("hs.mbtiles", lon: -105.5687, lat: 39.9441)[0])
        #expect(shade > 100 && shade < 250, "shade \(shade)")
        let mul = try pixel("mul.mbtiles", lon: -105.5687, lat: 39.9441), ov = try pixel("over.mbtiles", lon: -105.5687, lat: 39.9441)
        for (c, colour) in [200.0, 150, 100].enumerated() {
            #expect(abs(Double(mul[c]) - colour * shade / 255) <= 2, "multiply: \(mul) under \(shade)")
            #expect(abs(Double(ov[c]) - (colour * 0.5 + shade * 0.5)) <= 2, "over: \(ov) under \(shade)")
        }
        #expect(try pixel("mul.mbtiles", lon: -105.61, lat: 39.97) == [200, 150, 100, 255], "beyond the DEM: the imagery")
        #expect(try pixel("over.mbtiles", lon: -105.61, lat: 39.97) == [200, 150, 100, 255], "beyond the DEM: the imagery")
    }

    /// A trail walked 2 km east up the DEM's 10% ramp stores the ramp's ascent and grade.
    @Test func trailsOnAHillshadeStoreTheirAscentAndGrade() throws {
        let dem = try dem()
        // UTM 13N 450500 E and 452500 E at 4421500 N (gdaltransform), and the middle between.
        let feature = """
            {"type":"FeatureCollection","features":[{"type":"Feature","properties":{"name":"Ramp Trail","highway":"path","osm_id":"1"},
             "geometry":{"type":"LineString","coordinates":[[-105.579408752591,39.942175612611],[-105.5677,39.94223],
               [-105.55599935926,39.9422902396506]]}}]}
            """
        try feature.write(toFile: dir.file("ramp.geojson"), atomically: true, encoding: .utf8)
        let out = dir.file("trails-hs.mbtiles")
        let r = try CLIRunner.run([
            "build", "--dem", dem, "--hillshade", "--trails", dir.file("ramp.geojson"), "--trails-preset", "osm",
            "--name", "ramp", "--minzoom", "11", "--maxzoom", "12", "--out", out, "-q"
        ])
        #expect(r.status == 0, "\(r.stderr)")
        let index = try TrailIndex(bundle: out)
        let trail = try #require(try index.all().first)
        let figures = try #require(try index.elevation(trail.id), "the build stored no elevation figures")
        #expect(abs(figures.ascentMetres - 200) < 6, "ascent \(figures.ascentMetres)")
        #expect(figures.descentMetres < 2, "descent \(figures.descentMetres)")
        #expect(abs(figures.maxGradePercent - 10) < 1, "grade \(figures.maxGradePercent)")
        // `trails search` shows them: in its JSON, and in its lines.
        let json = try CLIRunner.run(["trails", "search", out, "--json"])
        #expect(json.status == 0, "\(json.stderr)")
        let page = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        let hit = try #require((page?["trails"] as? [[String: Any]])?.first)
        #expect(abs((hit["ascentM"] as? Double ?? -1) - figures.ascentMetres) <= 0.05)
        #expect(abs((hit["maxGradePct"] as? Double ?? -1) - figures.maxGradePercent) <= 0.05)
        let text = try CLIRunner.run(["trails", "search", out])
        #expect(text.stdout.contains(String(format: "up %.0f m", figures.ascentMetres)), "\(text.stdout)")
    }

    @Test func aTerrainManifestLayerBuilds() throws {
        let dem = try dem()
        let manifest = dir.file("terrain.json")
        try """
        {"name": "Relief", "minzoom": 11, "maxzoom": 11, "layers": [
          {"name": "shade", "kind": "terrain", "sources": ["dem.tif"],
           "hillshade": {"azimuth": 270, "altitude": 30, "mode": "multidirectional"}}
        ]}
        """.write(toFile: manifest, atomically: true, encoding: .utf8)
        let r = try CLIRunner.run(["build", "--manifest", manifest, "--out", dir.file("m.mbtiles"), "-q"])
        #expect(r.status == 0, "\(r.stderr)")
        _ = dem
        #expect(try BundleReader(path: dir.file("m.mbtiles")).metadataPairs()["trailmap:terrain"] == "hillshade (multidirectional)")
    }

    @Test func badInputIsNamedAndWritesNothing() throws {
        let dem = try dem()
        try "2000 0 128 0\n2100 0 128\n".write(toFile: dir.file("bad-ramp.txt"), atomically: true, encoding: .utf8)
        let made = try CLIRunner.run(
            ["-q", "-of", "GTiff", "-outsize", "8", "8", "-ot", "Int16", dir.file("nogeo.tif")], executable: "/usr/bin/gdal_create")
        try #require(made.status == 0, "gdal_create: \(made.stderr)")
        // The file problems fail (exit 1); options that cannot go together are usage errors (64).
        let cases: [([String], String, Int32)] = [
            (["--dem", dem, "--color-relief", dir.file("bad-ramp.txt")], "bad-ramp.txt:2:", 1),
            (["--dem", dir.file("nogeo.tif"), "--hillshade"], "nogeo.tif: the raster has no georeference", 1),
            (["--dem", dem], "--dem needs something to make", 64),
            (["--dem", dem, "--hillshade", "--format", "terrarium"], "terrain tiles, a bundle of their own", 64),
            (["--dem", dem, "--format", "terrarium", "--lossless"], "terrain tiles are lossless", 64),
            (["--source", dem, "--format", "terrarium"], "--format terrarium makes terrain tiles from a --dem", 64),
            (["--dem", dem, "--hillshade", "--azimuth", "400"], "--azimuth: azimuth 400.0 must be from 0 to 360", 64),
            (
                ["--source", dem, "--dem", dem, "--color-relief", dir.file("bad-ramp.txt")],
                "shades the source images with --hillshade only", 64
            ),
            (["--dem", dem, "--hillshade", "--terrain-blend", "over"], "--terrain-blend lays the --hillshade on --source images", 64),
            (["--source", dem, "--dem", dem, "--hillshade", "--terrain-blend", "screen"], "terrain-blend", 64)
        ]
        for (i, (args, message, status)) in cases.enumerated() {
            let out = dir.file("bad-\(i).mbtiles")
            let r = try CLIRunner.run(["build", "--name", "x", "--minzoom", "10", "--maxzoom", "10", "--out", out] + args)
            #expect(r.status == status, "\(args): exit \(r.status)")
            #expect(r.stderr.contains(message), "\(args): \(r.stderr)")
            #expect(!FileManager.default.fileExists(atPath: out), "\(args): nothing written")
        }
    }
}
