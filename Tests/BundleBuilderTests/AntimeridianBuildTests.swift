import Foundation
import Raster
import SourceReaders
import Testing
import TileGeometry
import TileStore
@testable import BundleBuilder
import TrailMapTestSupport

/// A UTM zone 60 South sheet across the antimeridian (Fiji, 179E to 179W), made by gdalwarp:
/// tiles on both sides, where gdalwarp puts them, and a centre near 180 degrees.
@Suite(.computeThreads) struct AntimeridianBuildTests {
    let fx = RealSourceFixture()

    @Test func aSheetAcrossTheAntimeridianBuildsOnBothSides() throws {
        let box = GeoBounds(west: 179, south: -17, east: 181, north: -16)
        let src = try fx.geographic("fiji", box: box)
        let sheet = try fx.projected(src, name: "utm60s", crs: "EPSG:32760", pixel: 500)
        let info = try SourceLoader.inspect(sheet, options: ReadOptions())
        #expect(info.parts.count == 2, "\(info.parts)")
        #expect(info.parts.allSatisfy { $0.west >= -180 && $0.east <= 180 })

        let o = fx.options([sheet], min: 5, max: 9, out: "fiji.mbtiles", resampling: .nearest)
        let reader = try fx.build(o)
        var columns = Set<Int>()
        try reader.forEachTileKey { t, _, _ in if t.z == 9 { columns.insert(t.x) } }
        #expect(columns.contains(0) && columns.contains(511), "tiles either side of 180 degrees: \(columns.sorted())")
        #expect(columns.allSatisfy { $0 <= 2 || $0 >= 509 }, "no tile far from the sheet: \(columns.sorted())")

        for lon in [179.5, -179.5] {
            let t = WebMercator.tile(lon: lon, lat: -16.5, zoom: 9)
            let ours = try #require(try fx.tile(reader, t), "tile \(t)")
            let theirs = try fx.reference(t, sheet, resampling: "near")
            let (fraction, compared) = RealSourceFixture.mismatch(ours, theirs)
            #expect(compared > 5_000, "tile \(t) overlaps gdalwarp's")
            // A checker cell spans ~18 tile pixels at zoom 9 here.
            #expect(fraction * 18 < 0.5, "tile \(t): mean offset \(fraction * 18) px against gdalwarp")
        }
        let meta = try reader.metadataPairs()
        let center = try #require(meta["center"]?.split(separator: ",").compactMap { Double($0) })
        #expect(center.count == 3 && 180 - abs(center[0]) < 1, "centre \(meta["center"] ?? "")")
    }

    /// The tile limit counts the tiles either side of the antimeridian, not around the world
    /// (zoom 18 alone would be ~200 million tiles across every longitude), and a region far
    /// from the sheet is refused as for any source.
    @Test func theLimitAndTheRegionUseBothSides() throws {
        let src = try fx.geographic("fiji", box: GeoBounds(west: 179, south: -17, east: 181, north: -16), size: 64)
        let sheet = try fx.projected(src, name: "utm60s", crs: "EPSG:32760", pixel: 2000)
        let plan = try BundleBuilder(options: fx.options([sheet], min: 5, max: 18, out: "deep.mbtiles")).plan()
        #expect(plan.bands[0].ranges.last?.count ?? 0 > BundleBuilder.maxTiles / 2, "the ranges span every longitude")
        #expect(BuildPlan.partTiles(plan.sources, bands: plan.bands.map(\.zoomBand), bounds: plan.bounds) < 3_000_000)
        // The units lie either side of 180 degrees (none in the empty middle, so none enumerated,
        // recorded or counted there), and the tiles to consider are theirs.
        let n = 1 << plan.bands[0].unitZoom
        #expect(
            !plan.bands[0].units.isEmpty && plan.bands[0].units.allSatisfy { $0.x < n / 256 || $0.x >= n - n / 256 },
            "units far from the sheet: \(plan.bands[0].units.filter { $0.x >= n / 256 && $0.x < n - n / 256 }.prefix(3))")
        #expect(plan.total > 0 && plan.total < 3_000_000, "\(plan.total) tiles to consider")

        var o = fx.options([sheet], min: 5, max: 8, out: "colorado.mbtiles")
        o.clipBounds = RealSourceTests.box
        #expect { try BundleBuilder(options: o).plan() } throws: { error in
            if case .sourceOutsideRegion = error as? BuildError { return true }
            return false
        }
    }

    /// Separate sources either side (Guam and Hawaii): the centre lies between them across the
    /// antimeridian, and the bounds span every longitude so that it lies inside them.
    @Test func sourcesFarApartAcrossTheAntimeridianCentreBetweenThem() throws {
        let guam = try fx.geographic("guam", box: GeoBounds(west: 144.6, south: 13.2, east: 145, north: 13.7), size: 32)
        let hawaii = try fx.geographic("hawaii", box: GeoBounds(west: -156, south: 19, east: -155, north: 20), size: 32)
        let reader = try fx.build(fx.options([guam, hawaii], min: 3, max: 4, out: "pacific.mbtiles"))
        let meta = try reader.metadataPairs()
        let center = try #require(meta["center"]?.split(separator: ",").compactMap { Double($0) })
        let bounds = try #require(meta["bounds"]?.split(separator: ",").compactMap { Double($0) })
        #expect(center.count == 3 && (center[0] > 170 || center[0] < -170), "centre \(meta["center"] ?? "")")
        #expect(bounds.count == 4 && bounds[0] == -180 && bounds[2] == 180, "bounds \(meta["bounds"] ?? "")")
    }

    /// `src` (EPSG:4326, `size` pixels a side, over `box` with east beyond 180°) cut where it
    /// crosses 180° into two sources within ±180°: the same pixels, the usual way. `metres`: the
    /// source is in EPSG:3857 over the same longitudes (x = lon / 180 × the half circumference).
    func halves(_ src: String, box: GeoBounds, size: Int, metres: Bool = false) throws -> [String] {
        let cut = Int(((180 - box.west) / (box.east - box.west) * Double(size)).rounded())
        let west = fx.dir.file("west-half.tif"), east = fx.dir.file("east-half.tif")
        try GDALTools.translate(src, west, ["-srcwin", "0", "0", String(cut), String(size)])
        let k = metres ? WebMercator.originShift / 180 : 1
        let (north, south) =
            metres
            ? (WebMercator.project(lon: 0, lat: box.north).y, WebMercator.project(lon: 0, lat: box.south).y)
            : (box.north, box.south)
        let window: [String] = ["-srcwin", String(cut), "0", String(size - cut), String(size)]
        let corners: [String] = ["-a_ullr", String(-180 * k), String(north), String((box.east - 360) * k), String(south)]
        try GDALTools.translate(src, east, window + corners)
        return [west, east]
    }

    /// Rasters whose edges lie a rounding error past ±180° (a world in EPSG:3857 written with the
    /// half circumference rounded up, a half-world sheet ending at 20037508.343 m) are clipped,
    /// not wrapped: the half-world sheet's footprint stays on its half.
    @Test func edgesARoundingErrorPastTheAntimeridianAreClipped() throws {
        let geo = try fx.geographic("g", box: GeoBounds(west: 0, south: -60, east: 90, north: 60), size: 64)
        let edge = "20037508.343"
        let half = fx.dir.file("half.tif"), world = fx.dir.file("world.tif"), exact = fx.dir.file("exact.tif")
        try GDALTools.translate(geo, half, ["-a_srs", "EPSG:3857", "-a_ullr", "0", "8399737.89", edge, "-8399737.89"])
        try GDALTools.translate(geo, world, ["-a_srs", "EPSG:3857", "-a_ullr", "-" + edge, "8399737.89", edge, "-8399737.89"])
        let s = String(WebMercator.originShift)
        try GDALTools.translate(geo, exact, ["-a_srs", "EPSG:3857", "-a_ullr", "-" + s, "8399737.89", s, "-8399737.89"])
        let info = try SourceLoader.inspect(half, options: ReadOptions())
        #expect(info.longitudeWindow == nil && info.parts.count == 1 && info.bounds.west > -1, "\(info.bounds) \(info.parts)")
        #expect(try SourceLoader.inspect(world, options: ReadOptions()).longitudeWindow == nil)
        #expect(try tiles([world], min: 0, max: 2, out: "w.mbtiles") == tiles([exact], min: 0, max: 2, out: "e.mbtiles"))
    }

    /// An EPSG:3857 raster running past x = 20037508 m (a sheet from 179°E to 181°E warped to Web
    /// Mercator) builds the tiles of its halves: it was refused as outside the Mercator square.
    @Test func webMercatorPastTheAntimeridian() throws {
        let box = GeoBounds(west: 179, south: -17, east: 181, north: -16), size = 360
        let geo = try fx.geographic("geo", box: box, size: size)
        let src = fx.dir.file("past-3857.tif")
        let (x0, y0) = WebMercator.project(lon: box.west, lat: box.north), y1 = WebMercator.project(lon: 0, lat: box.south).y
        let x1 = box.east / 180 * WebMercator.originShift
        try GDALTools.translate(geo, src, ["-a_srs", "EPSG:3857", "-a_ullr", String(x0), String(y0), String(x1), String(y1)])
        let whole = try tiles([src], min: 5, max: 9, out: "whole.mbtiles")
        let split = try tiles(halves(src, box: box, size: size, metres: true), min: 5, max: 9, out: "split.mbtiles")
        #expect(!whole.isEmpty && Set(whole.keys) == Set(split.keys))
        #expect(whole.keys.contains { $0.z == 9 && $0.x == 0 } && whole.keys.contains { $0.z == 9 && $0.x == 511 })
        for (t, a) in whole {
            let b = split[t]!
            var pixels = 0
            for p in stride(from: 0, to: a.count, by: 4) where a[p..<(p + 4)] != b[p..<(p + 4)] { pixels += 1 }
            #expect(pixels <= a.count / 4 / 20, "tile \(t): \(pixels) pixels differ")
        }
    }

    func tiles(_ sources: [String], min: Int, max: Int, out: String) throws -> [TileID: [UInt8]] {
        let reader = try fx.build(fx.options(sources, min: min, max: max, out: out, resampling: .nearest))
        var found = [TileID: [UInt8]]()
        try reader.forEachTile { t, data in
            found[t] = (try? PNGDecoder.decode(data))?.pixels ?? []
            return true
        }
        return found
    }

    /// Sources in degrees past 180°, a sheet from 179°E to 181°E and a 0–360° world grid, build
    /// the tiles their halves within ±180° build.
    @Test(arguments: [GeoBounds(west: 179, south: -17, east: 181, north: -16), GeoBounds(west: 0, south: -60, east: 360, north: 60)])
    func degreesPastTheAntimeridian(_ box: GeoBounds) throws {
        let size = 360
        let src = try fx.geographic("past", box: box, size: size)
        let zooms = box.east - box.west > 180 ? (0, 2) : (5, 9)
        let whole = try tiles([src], min: zooms.0, max: zooms.1, out: "whole.mbtiles")
        let split = try tiles(halves(src, box: box, size: size), min: zooms.0, max: zooms.1, out: "split.mbtiles")
        #expect(!whole.isEmpty)
        #expect(Set(whole.keys) == Set(split.keys))
        // The whole source goes through the grid warper (within 0.125 source pixels, so nearest
        // neighbour flips pixels along cell edges where Mercator bends most), the halves through
        // the closed form: tiles agree but for such pixels. Halves swapped or misplaced would
        // disagree on about half of every tile.
        for (t, a) in whole {
            let b = split[t]!
            var pixels = 0
            for p in stride(from: 0, to: a.count, by: 4) where a[p..<(p + 4)] != b[p..<(p + 4)] { pixels += 1 }
            #expect(pixels <= a.count / 4 / 20, "tile \(t): \(pixels) pixels differ")
        }
    }
}
