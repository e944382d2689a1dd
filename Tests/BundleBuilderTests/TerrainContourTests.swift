import Foundation
import Synchronization
import Logging
import Raster
import SourceReaders
import Terrain
import Testing
import TileGeometry
import TileStore
@testable import BundleBuilder
import TrailMapTestSupport
import TrailRendering

/// Contour lines of DEMs made by GDAL in the test run: a cone laid on a tile's own Web Mercator
/// pixels (its contours are circles of known radius), read through the builder's DEM path; the
/// UTM cone against `gdal_contour` on the same warped tile; drawn bundles; manifest options.
@Suite(.computeThreads) struct TerrainContourTests {
    let fx = TerrainFixture()

    /// The tile the Mercator cone lies on, and the cone: `top` metres at tile pixel (cx, cy),
    /// falling `slope` metres a pixel.
    static let tile = WebMercator.tile(lon: -105.5, lat: 40, zoom: 12)
    static let (cx, cy, top, slope) = (128.3, 127.6, 2000.0, 10.0)

    /// A DEM in EPSG:3857 whose pixels are `tile`'s (and 16 more on every side).
    func mercatorCone() throws -> String {
        let b = Self.tile.mercatorBounds, px = (b.maxX - b.minX) / 256, margin = 16
        return try fx.dem(
            "mercator-cone", size: 256 + 2 * margin, cell: px, x0: b.minX - Double(margin) * px,
            y0: b.minY - Double(margin) * px, srs: "EPSG:3857"
        ) { x, y in
            let tx = (x - b.minX) / px, ty = (b.maxY - y) / px
            return Self.top - Self.slope * ((tx - Self.cx) * (tx - Self.cx) + (ty - Self.cy) * (ty - Self.cy)).squareRoot()
        }
    }

    /// The builder's elevations of the cone's tile (its DEM path: GDAL's warper into the tile's
    /// grid, the vertical unit converted to metres), traced: each level is a circle of radius
    /// (top − level) / slope pixels in the DEM's unit; every level between the tile's lowest and
    /// highest elevation is there; index levels are flagged. Levels are metres: the DEM read as
    /// feet puts level L at (top − L / 0.3048) / slope pixels.
    @Test(arguments: [VerticalUnit.metre, .foot])
    func theConesLevelsAreCirclesOfTheirRadius(_ unit: VerticalUnit) throws {
        let dem = try mercatorCone()
        var layer = TerrainLayer(sources: [dem])
        layer.verticalUnit = unit
        let sources = try TerrainSources.read(layer, logger: Logger(label: "test"))
        let pool = DEMReaderPool(paths: [dem], crs: nil, unit: unit)
        let block = TerrainBlock(
            tiles: TileRange(z: Self.tile.z, minX: Self.tile.x, maxX: Self.tile.x, minY: Self.tile.y, maxY: Self.tile.y))
        let grid = try #require(
            try block.elevations(
                size: 256, border: 2, dems: sources.dems, sampling: .bilinear,
                pool: pool, readers: pool.take())
        ).grid(Self.tile)
        let lines = try Contours.trace(grid, levels: ContourLevels(interval: 100, indexEvery: 5))
        let finite = grid.values.filter { !$0.isNaN }.map(Double.init)
        let expected = Int((finite.max()! / 100).rounded(.down)) - Int((finite.min()! / 100).rounded(.up)) + 1
        #expect(Set(lines.map(\.level)).count == expected, "levels \(Set(lines.map(\.level)).sorted())")
        var checked = 0
        for line in lines {
            #expect(line.isIndex == (Int(line.level) % 500 == 0), "level \(line.level)")
            let radius = (Self.top - line.level / unit.metres) / Self.slope
            // Circles wholly inside the tile and its border are one closed line.
            if radius < 125 { #expect(line.isClosed, "level \(line.level)") }
            for p in line.points {
                let r = ((p.x - Self.cx) * (p.x - Self.cx) + (p.y - Self.cy) * (p.y - Self.cy)).squareRoot()
                #expect(abs(r - radius) < 0.1, "level \(line.level): \(p) at \(r) px, circle \(radius) px")
                checked += 1
            }
        }
        #expect(checked > 2000, "\(checked) points")
    }

    /// The UTM cone (30 m pixels, a square void) warped onto a zoom-12 tile by gdalwarp: our lines
    /// and `gdal_contour`'s on the same raster (read through ogr2ogr as GeoJSON) lie within a
    /// twentieth of a pixel of each other, level by level, with the same levels.
    @Test func linesMatchGdalContourOnTheSameTile() throws {
        let dem = try fx.cone()
        let t = WebMercator.tile(lon: -105.52, lat: 39.99, zoom: 12)
        let border = 2
        let warped = try fx.warped(dem, t, border: border, resampling: "bilinear")
        let values = try fx.floats(warped).map { $0 == -9999 ? Float.nan : Float($0) }
        let grid = ElevationGrid(size: 256, border: border, values: values)
        #expect(grid.values.contains { $0.isNaN }, "the tile holds part of the void")
        let ours = try Contours.trace(grid, levels: ContourLevels(interval: 250, indexEvery: 4))

        let gpkg = fx.dir.file("contours.gpkg"), json = fx.dir.file("contours.geojson")
        try GDALTools.run("gdal_contour", ["-q", "-a", "ELEV", "-i", "250", warped, gpkg])
        try GDALTools.run("ogr2ogr", ["-f", "GeoJSON", json, gpkg])
        let b = t.mercatorBounds, res = (b.maxX - b.minX) / 256
        var theirs = [Double: [[SIMD2<Double>]]]()
        let doc = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: json))) as? [String: Any])
        for f in doc["features"] as? [[String: Any]] ?? [] {
            let level = try #require((f["properties"] as? [String: Any])?["ELEV"] as? Double)
            let geometry = try #require(f["geometry"] as? [String: Any])
            let parts: [[[Double]]] =
                geometry["type"] as? String == "MultiLineString"
                ? geometry["coordinates"] as? [[[Double]]] ?? [] : [geometry["coordinates"] as? [[Double]] ?? []]
            for part in parts {
                theirs[level, default: []].append(part.map { SIMD2(($0[0] - b.minX) / res, (b.maxY - $0[1]) / res) })
            }
        }
        let inTile = { (p: SIMD2<Double>) in p.x >= 0 && p.x <= 256 && p.y >= 0 && p.y <= 256 }
        let ourLevels = Set(ours.filter { $0.points.contains(where: inTile) }.map(\.level))
        let theirLevels = Set(theirs.filter { $0.value.contains { $0.contains(where: inTile) } }.keys)
        #expect(ourLevels == theirLevels && ourLevels.count >= 5, "ours \(ourLevels.sorted()), gdal_contour's \(theirLevels.sorted())")
        var compared = 0, worst = 0.0
        for line in ours {
            let reference = theirs[line.level] ?? []
            for p in line.points where inTile(p) {
                let d = Self.distance(p, reference)
                worst = max(worst, d)
                compared += 1
            }
        }
        for (level, lines) in theirs {
            let mine = ours.filter { $0.level == level }.map(\.points)
            for p in lines.joined() where inTile(p) { worst = max(worst, Self.distance(p, mine)) }
        }
        #expect(compared > 1000, "\(compared) points compared")
        // Both place a level linearly between pixel centres: the lines agree far inside a pixel.
        #expect(worst < 0.05, "the farthest point is \(worst) px from the other's line of its level")
    }

    /// The distance from `p` to the nearest segment of `lines`.
    static func distance(_ p: SIMD2<Double>, _ lines: [[SIMD2<Double>]]) -> Double {
        var best = Double.infinity
        for line in lines {
            if line.count == 1 { best = min(best, ((p - line[0]) * (p - line[0])).sum().squareRoot()) }
            for (a, c) in zip(line, line.dropFirst()) {
                let d = c - a, len2 = (d * d).sum()
                let t = len2 > 0 ? min(1, max(0, ((p - a) * d).sum() / len2)) : 0
                let e = p - (a + t * d)
                best = min(best, (e * e).sum().squareRoot())
            }
        }
        return best
    }

    /// Contours alone, built: drawn pixels lie on the circles, index contours (every 500 m) are
    /// drawn wider than the others, and the colour is the one asked for.
    @Test func aContourBundleDrawsIndexContoursHeavier() throws {
        let dem = try mercatorCone()
        var layer = TerrainLayer(sources: [dem])
        var contours = ContourOptions(interval: 100, indexEvery: 5)
        contours.color = try #require(TrailColor(hex: "#204080"))
        contours.width = 1
        contours.indexWidth = 3
        layer.contours = contours
        let reader = try fx.build(fx.options(layer, zooms: 12...12, out: "contours.mbtiles"))
        let image = try #require(try fx.tile(reader, Self.tile))
        #expect(try reader.metadataPairs()["trailmap:terrain"] == "contours")
        // Coverage summed across each circle along a ray to the east: the line's width in pixels.
        let row = Int(Self.cy)
        var across = [Double: Double]()
        for x in Int(Self.cx)..<256 {
            let i = (row * 256 + x) * 4
            let r =
                ((Double(x) + 0.5 - Self.cx) * (Double(x) + 0.5 - Self.cx) + (Double(row) + 0.5 - Self.cy) * (Double(row) + 0.5 - Self.cy))
                .squareRoot()
            let level = ((Self.top - Self.slope * r) / 100).rounded() * 100
            across[level, default: 0] += Double(image.pixels[i + 3]) / 255
        }
        for (level, width) in across where level < 2000 && level > 800 {
            let expected = Int(level) % 500 == 0 ? 3.0 : 1.0
            #expect(abs(width - expected) < 0.3, "level \(level): \(width) px across, expected \(expected)")
        }
        // Every drawn pixel is near a circle, in the asked colour.
        for y in 0..<256 {
            for x in 0..<256 where image.pixels[(y * 256 + x) * 4 + 3] > 0 {
                let i = (y * 256 + x) * 4
                let r =
                    ((Double(x) + 0.5 - Self.cx) * (Double(x) + 0.5 - Self.cx) + (Double(y) + 0.5 - Self.cy) * (Double(y) + 0.5 - Self.cy))
                    .squareRoot()
                let e = Self.top - Self.slope * r
                let off = abs(e - (e / 100).rounded() * 100) / Self.slope
                #expect(off < 2.25, "pixel \(x),\(y): \(off) px from a circle")
                #expect((image.pixels[i], image.pixels[i + 1], image.pixels[i + 2]) == (0x20, 0x40, 0x80))
                if off >= 2.25 { return }
            }
        }
    }

    /// Contours over a hillshade: the tile is the hillshade where no line passes, and darker
    /// along the lines.
    @Test func contoursAreDrawnOverTheHillshade() throws {
        let dem = try mercatorCone()
        var plain = TerrainLayer(sources: [dem])
        plain.hillshade = HillshadeOptions()
        var lined = plain
        lined.contours = ContourOptions(interval: 100)
        let a = try #require(try fx.tile(try fx.build(fx.options(plain, zooms: 12...12, out: "hs.mbtiles")), Self.tile))
        let b = try #require(try fx.tile(try fx.build(fx.options(lined, zooms: 12...12, out: "hs-contours.mbtiles")), Self.tile))
        var same = 0, changed = 0, far = 0
        for y in 0..<256 {
            for x in 0..<256 {
                let i = (y * 256 + x) * 4
                let r =
                    ((Double(x) + 0.5 - Self.cx) * (Double(x) + 0.5 - Self.cx) + (Double(y) + 0.5 - Self.cy) * (Double(y) + 0.5 - Self.cy))
                    .squareRoot()
                let e = Self.top - Self.slope * r
                let off = abs(e - (e / 100).rounded() * 100) / Self.slope
                if off > 2 {
                    far += 1
                    if a.pixels[i..<(i + 4)] == b.pixels[i..<(i + 4)] { same += 1 }
                } else if off < 0.2, r > 2 {
                    #expect(b.pixels[i + 3] == 255 && b.pixels[i] != a.pixels[i], "pixel \(x),\(y) on a line")
                    changed += 1
                }
            }
        }
        #expect(same == far && changed > 300, "\(same) of \(far) pixels away from the lines untouched, \(changed) on lines")
    }

    /// An interval too fine for one zoom's tiles is refused before any tile is made: the build
    /// reports no tile stored (the coarser zooms, whose interval is fine, are not written first)
    /// and the error names a tile of that zoom.
    @Test func tooManyLevelsIsRefusedBeforeAnyTile() throws {
        let dem = try fx.cone()
        var layer = TerrainLayer(sources: [dem])
        layer.hillshade = HillshadeOptions()
        var contours = ContourOptions()
        contours.zoomLevels = [
            ContourZoomRange(zooms: 11...12, levels: ContourLevels(interval: 100)),
            ContourZoomRange(zooms: 13...13, levels: ContourLevels(interval: 0.5))
        ]
        layer.contours = contours
        let o = fx.options(layer, zooms: 11...13, out: "too-fine.mbtiles")
        let stored = Mutex(0)
        #expect { _ = try BundleBuilder(options: o).build { p in stored.withLock { $0 = max($0, p.stored) } } } throws: { error in
            guard case let .terrain(.contourTile(tile, .tooManyLevels(count, limit, interval))) = error as? BuildError else { return false }
            return tile.z == 13 && count > limit && interval == 0.5
        }
        #expect(stored.withLock { $0 } == 0, "tiles were stored before the error")
        #expect(!FileManager.default.fileExists(atPath: o.output))
        // The same DEM with an interval every tile can hold builds.
        contours.zoomLevels[1].levels = ContourLevels(interval: 20)
        layer.contours = contours
        let reader = try fx.build(fx.options(layer, zooms: 13...13, out: "fine-enough.mbtiles"))
        #expect(try reader.metadataPairs()["maxzoom"] == "13")
    }

    /// A tile crossing more levels than allowed is a structured error naming the tile; a DEM of
    /// voids alone is refused before anything is drawn; bad options are refused before reading.
    @Test func badContourInputIsRefused() throws {
        let dem = try mercatorCone()
        var layer = TerrainLayer(sources: [dem])
        layer.contours = ContourOptions(interval: 0.05)
        #expect { try fx.build(fx.options(layer, zooms: 12...12, out: "fine.mbtiles")) } throws: { error in
            guard case let .terrain(.contourTile(_, .tooManyLevels(count, limit, _))) = error as? BuildError else { return false }
            return count > limit
        }
        #expect(!FileManager.default.fileExists(atPath: fx.dir.file("fine.mbtiles")))
        for bad in [
            ContourOptions(interval: 0), ContourOptions(interval: -20), ContourOptions(interval: .nan),
            ContourOptions(interval: 10, indexEvery: -2)
        ] {
            layer.contours = bad
            #expect { try fx.build(fx.options(layer, zooms: 12...12, out: "bad.mbtiles")) } throws: { error in
                guard case .terrain(.contours(.levels)) = error as? BuildError else { return false }
                return true
            }
        }
        var wide = ContourOptions(interval: 10)
        wide.indexWidth = 0
        layer.contours = wide
        #expect { try fx.build(fx.options(layer, zooms: 12...12, out: "bad.mbtiles")) } throws: { error in
            guard case .terrain(.contours(.indexWidth(0))) = error as? BuildError else { return false }
            return true
        }
        let voids = try fx.dem("voids", size: 20, cell: 30, x0: TerrainFixture.utm.x0, y0: TerrainFixture.utm.y0, srs: "EPSG:32613") {
            _, _ in nil
        }
        var empty = TerrainLayer(sources: [voids])
        empty.contours = ContourOptions(interval: 10)
        #expect { try fx.build(fx.options(empty, zooms: 12...12, out: "voids.mbtiles")) } throws: { error in
            guard case .source(.noElevations(_)) = error as? BuildError else { return false }
            return true
        }
        #expect(!FileManager.default.fileExists(atPath: fx.dir.file("voids.mbtiles")))
    }

    /// The manifest's `contours`: an interval, or an object with per-zoom-range intervals; bad
    /// values are named by field.
    @Test func manifestContours() throws {
        let dem = try mercatorCone()
        func load(_ contours: String) throws(BuildError) -> BuildManifest {
            let path = fx.dir.file("m-\(UUID().uuidString).json")
            try! """
            {"name": "Relief", "layers": [{"name": "relief", "kind": "terrain", "sources": ["\(dem)"], "contours": \(contours)}]}
            """.write(toFile: path, atomically: true, encoding: .utf8)
            return try BuildManifest.load(path: path)
        }
        let plain = try #require(try load("20").terrain?.contours)
        #expect(plain.levels == ContourLevels(interval: 20, indexEvery: 5) && plain.zoomLevels.isEmpty)
        let ranged = try #require(
            try load(
                """
                {"interval": 20, "indexEvery": 4, "color": "#6b4f2a80", "width": 1, "indexWidth": 2, "opacity": 0.5,
                 "zooms": [{"minzoom": 8, "maxzoom": 10, "interval": 200}, {"minzoom": 11, "maxzoom": 12, "interval": 50, "indexEvery": 2}]}
                """
            ).terrain?.contours)
        #expect(ranged.levels(zoom: 9) == ContourLevels(interval: 200, indexEvery: 4))
        #expect(ranged.levels(zoom: 12) == ContourLevels(interval: 50, indexEvery: 2))
        #expect(ranged.levels(zoom: 14) == ContourLevels(interval: 20, indexEvery: 4))
        #expect(ranged.color == TrailColor(red: 0x6b, green: 0x4f, blue: 0x2a, alpha: 0x80) && ranged.opacity == 0.5)
        let onlyRanges = try #require(try load(#"{"zooms": [{"minzoom": 10, "maxzoom": 12, "interval": 100}]}"#).terrain?.contours)
        #expect(onlyRanges.levels(zoom: 13) == nil && onlyRanges.levels(zoom: 11)?.interval == 100)

        let bad: [(String, String)] = [
            ("0", "contours"), ("-5", "contours"), (#""20""#, "contours"), (#"{"interval": "abc"}"#, "contours.interval"),
            (#"{"interval": 0}"#, "contours.interval"), (#"{"indexEvery": 5}"#, "contours.interval"),
            (#"{"interval": 10, "indexEvery": -1}"#, "contours.indexEvery"), (#"{"interval": 10, "width": 0}"#, "contours.width"),
            (#"{"interval": 10, "color": "brown"}"#, "contours.color"), (#"{"interval": 10, "opacity": 2}"#, "contours.opacity"),
            (#"{"interval": 10, "every": 2}"#, "contours.every"),
            (
                #"{"zooms": [{"minzoom": 8, "maxzoom": 10, "interval": 100}, {"minzoom": 10, "maxzoom": 12, "interval": 50}]}"#,
                "contours.zooms[1]"
            ),
            (#"{"zooms": [{"minzoom": 12, "maxzoom": 10, "interval": 100}]}"#, "contours.zooms[0].minzoom"),
            (#"{"zooms": [{"minzoom": 8, "maxzoom": 10}]}"#, "contours.zooms[0].interval")
        ]
        for (value, field) in bad {
            #expect("\(value)") {
                _ = try load(value)
            } throws: { error in
                guard case let .manifest(_, f, _) = error as? BuildError else { return false }
                return f == "layers[0].\(field)"
            }
        }
    }
}
