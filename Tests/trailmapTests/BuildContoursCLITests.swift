import Foundation
import Raster
import Testing
import TileGeometry
import TileStore
import TrailMapTestSupport

/// `trailmap build --dem --contours`: a cone laid on a zoom-12 tile's own Web Mercator pixels
/// (made by gdal_translate), whose contours are circles of known radius around its apex: the
/// bundle's tile is drawn along those circles and nowhere else; bad values get a message naming
/// the option, a non-zero exit and no bundle.
@Suite(.blockingThreads) struct BuildContoursCLITests {
    let dir = TemporaryDirectory()
    static let tile = WebMercator.tile(lon: -105.5, lat: 40, zoom: 12)
    /// The apex in tile pixels, its height, and the fall in metres a pixel.
    static let (cx, cy, top, slope) = (128.3, 127.6, 2000.0, 10.0)

    func cone() throws -> String {
        let b = Self.tile.mercatorBounds, px = (b.maxX - b.minX) / 256
        let grid = TerrainFixtures.Grid(
            crs: "EPSG:3857", west: b.minX - 16 * px, north: b.maxY + 16 * px, pixel: px, columns: 288, rows: 288)
        return try TerrainFixtures.dem(grid, at: dir.file("cone.tif")) { x, y in
            let tx = (x - b.minX) / px, ty = (b.maxY - y) / px
            return Self.top - Self.slope * ((tx - Self.cx) * (tx - Self.cx) + (ty - Self.cy) * (ty - Self.cy)).squareRoot()
        }
    }

    /// How far (in pixels) tile pixel (x, y)'s centre is from the nearest circle of a level of `interval`.
    static func offCircle(_ x: Int, _ y: Int, interval: Double) -> Double {
        let r = ((Double(x) + 0.5 - cx) * (Double(x) + 0.5 - cx) + (Double(y) + 0.5 - cy) * (Double(y) + 0.5 - cy)).squareRoot()
        let e = top - slope * r
        return abs(e - (e / interval).rounded() * interval) / slope
    }

    @Test func contoursAloneAreDrawnAlongTheCircles() throws {
        let dem = try cone(), out = dir.file("contours.mbtiles")
        let r = try CLIRunner.run([
            "build", "--dem", dem, "--contours", "100", "--name", "c", "--minzoom", "12", "--maxzoom", "12", "--out", out, "-q"
        ])
        #expect(r.status == 0, "\(r.stderr)")
        let reader = try BundleReader(path: out)
        #expect(try reader.metadataPairs()["trailmap:terrain"] == "contours")
        let image = try TileDecoder.decode([UInt8](try #require(try reader.tile(Self.tile))))
        let alpha = { (x: Int, y: Int) -> UInt8 in (0..<256).contains(x) && (0..<256).contains(y) ? image.pixels[(y * 256 + x) * 4 + 3] : 0
        }
        // Nothing drawn away from the circles (the index lines are 1.6 px wide, kept within 0.2 px when simplified).
        var drawn = 0
        for y in 0..<256 {
            for x in 0..<256 where alpha(x, y) > 0 {
                drawn += 1
                let off = Self.offCircle(x, y, interval: 100)
                #expect(off < 1.5, "pixel \(x),\(y) drawn \(off) px from every circle")
                if off >= 1.5 { return }
            }
        }
        // Along every circle inside the tile, drawn pixels all the way round.
        var onCircles = 0
        for level in stride(from: 900.0, through: 1900, by: 100) {
            let radius = (Self.top - level) / Self.slope
            for step in 0..<72 {
                let a = Double(step) * .pi / 36
                let x = Int((Self.cx + radius * cos(a)).rounded(.down)), y = Int((Self.cy + radius * sin(a)).rounded(.down))
                let near = (-1...1).flatMap { dy in (-1...1).map { dx in alpha(x + dx, y + dy) } }.max()!
                #expect(near > 60, "level \(level) at \(step * 5)°: nothing drawn near \(x),\(y)")
                onCircles += 1
            }
        }
        #expect(drawn > 3000 && onCircles == 11 * 72, "\(drawn) pixels drawn")
        // Index contours (every fifth level: 1000 m and 1500 m) are wider: coverage summed across a ray.
        var across = [Double: Double]()
        let row = Int(Self.cy)
        for x in Int(Self.cx)..<256 {
            let r =
                ((Double(x) + 0.5 - Self.cx) * (Double(x) + 0.5 - Self.cx) + (Double(row) + 0.5 - Self.cy) * (Double(row) + 0.5 - Self.cy))
                .squareRoot()
            across[((Self.top - Self.slope * r) / 100).rounded() * 100, default: 0] += Double(alpha(x, row)) / 255
        }
        #expect(across[1500]! > 1.5 * across[1400]! && across[1000]! > 1.5 * across[1100]!, "\(across.sorted { $0.key < $1.key })")
    }

    @Test func contoursOverAHillshadeAndManifestRanges() throws {
        let dem = try cone(), out = dir.file("hs.mbtiles")
        let r = try CLIRunner.run([
            "build", "--dem", dem, "--hillshade", "--contours", "50", "--contour-index-every", "2", "--name", "c",
            "--minzoom", "12", "--maxzoom", "12", "--out", out, "-q"
        ])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try BundleReader(path: out).metadataPairs()["trailmap:terrain"] == "hillshade (single) and contours")
        // A manifest whose zoom-12 range draws every 200 m: no line at the 100 m levels between.
        let manifest = dir.file("m.json")
        try """
        {"name": "Lines", "minzoom": 12, "maxzoom": 12, "layers": [{"name": "lines", "kind": "terrain", "sources": ["cone.tif"],
          "contours": {"interval": 20, "zooms": [{"minzoom": 11, "maxzoom": 12, "interval": 200}], "color": "#ff0000"}}]}
        """.write(toFile: manifest, atomically: true, encoding: .utf8)
        let m = try CLIRunner.run(["build", "--manifest", manifest, "--out", dir.file("m.mbtiles"), "-q"])
        #expect(m.status == 0, "\(m.stderr)")
        let image = try TileDecoder.decode([UInt8](try #require(try BundleReader(path: dir.file("m.mbtiles")).tile(Self.tile))))
        var drawn = 0
        for y in 0..<256 {
            for x in 0..<256 where image.pixels[(y * 256 + x) * 4 + 3] > 0 {
                drawn += 1
                #expect(Self.offCircle(x, y, interval: 200) < 1.5, "pixel \(x),\(y)")
                #expect(image.pixels[(y * 256 + x) * 4] == 255)
            }
        }
        #expect(drawn > 1000)
    }

    @Test func badContourValuesAreNamedAndWriteNothing() throws {
        let dem = try cone()
        let voids = try TerrainFixtures.dem(
            TerrainFixtures.Grid(crs: "EPSG:3857", west: -11_740_000, north: 4_865_000, pixel: 30, columns: 10, rows: 10),
            at: dir.file("voids.tif")
        ) { _, _ in nil }
        let cases: [([String], String)] = [
            (["--dem", dem, "--contours", "0"], "--contours must be a number of metres above 0, not 0.0"),
            (["--dem", dem, "--contours", "-5"], "--contours must be a number of metres above 0, not -5.0"),
            (["--dem", dem, "--contours", "abc"], "--contours"),
            (["--dem", dem, "--contours", "nan"], "--contours must be a number of metres above 0"),
            (["--dem", dem, "--contours", "10", "--contour-index-every", "-1"], "--contour-index-every must be 0"),
            (["--dem", dem, "--hillshade", "--contour-index-every", "3"], "--contour-index-every applies to --contours"),
            (["--dem", dem, "--contours", "10", "--format", "terrarium"], "drop --hillshade, --color-relief and --contours"),
            (["--contours", "10", "--source", dem], "apply to --dem"),
            (
                ["--dem", dem, "--contours", "0.001"],
                "levels in this tile (at most 2000), whose lines would fill it; nothing was written: give a wider --contours"
            ),
            (["--dem", voids, "--contours", "10"], "voids.tif")
        ]
        for (i, (args, message)) in cases.enumerated() {
            let out = dir.file("bad-\(i).mbtiles")
            let r = try CLIRunner.run(["build", "--name", "x", "--minzoom", "12", "--maxzoom", "12", "--out", out] + args)
            #expect(r.status != 0, "\(args)")
            #expect(r.stderr.contains(message), "\(args): \(r.stderr)")
            #expect(!FileManager.default.fileExists(atPath: out), "\(args): nothing written")
        }
    }
}
