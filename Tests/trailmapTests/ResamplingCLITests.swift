import Foundation
import Testing
import TileGeometry
import TrailMapTestSupport

/// `--resampling` takes gdal2tiles' methods: each makes other tiles than the rest, from a source
/// in geographic coordinates (the separable renderer) and one in UTM (the warper), and every
/// bundle verifies; `near` is nearest; another value is a usage error listing the methods.
@Suite(.serialized, .blockingThreads) struct ResamplingCLITests {
    let dir = TemporaryDirectory()
    static let methods = ["near", "bilinear", "cubic", "cubicspline", "lanczos", "average", "mode"]

    func build(_ source: String, _ method: String, out: String) throws -> CLIRunner.Result {
        try CLIRunner.run([
            "build", "--source", source, "--name", "R", "--minzoom", "8", "--maxzoom", "11", "--resampling", method,
            "--threads", "2", "--quiet", "--out", dir.file(out)
        ])
    }

    @Test func everyMethodMakesItsOwnValidTiles() throws {
        // Hard edges and smooth areas, so that the methods part ways.
        let png = try TestSources.write(
            in: dir, name: "map", width: 120, height: 100,
            bounds: GeoBounds(west: -105.6, south: 39.6, east: -105.1, north: 40.0)
        ) { c, r in
            (c / 6 + r / 5) % 3 == 0 ? (200, 30, 30, 255) : TestSources.terrain(c, r)
        }
        let geographic = dir.file("map.tif"), utm = dir.file("map-utm.tif")
        try GDALTools.translate(png, geographic, ["-a_srs", "EPSG:4326"])
        try GDALTools.warp(geographic, utm, ["-t_srs", "EPSG:32613", "-r", "near"])
        for (name, source) in [("geographic", geographic), ("utm", utm)] {
            var seen = [String: String]()
            for method in Self.methods {
                let out = "\(name)-\(method).mbtiles"
                let r = try build(source, method, out: out)
                #expect(r.status == 0, "\(name) \(method): \(r.stderr)")
                #expect(try CLIRunner.run(["bundle", "verify", dir.file(out)]).status == 0, "\(name) \(method)")
                let tiles = try TestBundle.tiles(dir.file(out))
                #expect(tiles.count > 4)
                let key = tiles.keys.sorted { ($0.z, $0.x, $0.y) < ($1.z, $1.x, $1.y) }.map { tiles[$0]!.base64EncodedString() }.joined()
                #expect(seen[key] == nil, "\(name): \(method) made the same tiles as \(seen[key] ?? "")")
                seen[key] = method
            }
        }
        // gdal2tiles' `near` is the method's name too.
        let nearest = try build(geographic, "nearest", out: "nearest.mbtiles")
        #expect(nearest.status == 0)
        #expect(try TestBundle.tiles(dir.file("nearest.mbtiles")) == TestBundle.tiles(dir.file("geographic-near.mbtiles")))
    }

    @Test func anotherValueIsAUsageErrorListingTheMethods() throws {
        let r = try CLIRunner.run([
            "build", "--source", dir.file("none.tif"), "--name", "R", "--resampling", "sinc", "--out", dir.file("x.mbtiles")
        ])
        #expect(r.status == 64, "\(r.status) \(r.stderr)")
        #expect(r.stderr.contains("--resampling") && r.stderr.contains("'sinc'"), "\(r.stderr)")
        for method in ["bilinear", "cubic", "cubicspline", "lanczos", "average", "mode"] {
            #expect(r.stderr.contains(method), "\(method) not listed: \(r.stderr)")
        }
    }
}
