import Foundation
import Testing
import TileGeometry
import TileStore
import SourceReaders
@testable import BundleBuilder
import TrailMapTestSupport

/// Zoom ranges taken from the sources (`trailmap build` without `--minzoom`/`--maxzoom`), checked
/// against gdal2tiles' rule applied to gdalwarp's own choice of the warped raster.
@Suite(.computeThreads) struct SourceZoomTests {
    let fx = RealSourceFixture()

    /// gdal2tiles' `ZoomForPixelSize`: the last zoom whose pixels are at least `size` metres.
    static func gdal2tilesZoom(_ size: Double, tileSize: Double = 256) -> Int {
        for i in 0..<32 where size > 2 * Double.pi * 6_378_137 / tileSize / pow(2, Double(i)) { return max(0, i - 1) }
        return 31
    }

    /// gdalwarp's suggested output for `src` in EPSG:3857: pixel size and raster size.
    func warped(_ src: String) throws -> (pixel: Double, width: Int, height: Int) {
        let vrt = fx.dir.file(URL(fileURLWithPath: src).lastPathComponent + ".3857.vrt")
        try GDALTools.warp(src, vrt, ["-of", "VRT", "-t_srs", "EPSG:3857"])
        let json = try GDALTools.run("gdalinfo", ["-json", vrt])
        let info = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        let gt = try #require(info["geoTransform"] as? [Double])
        let size = try #require(info["size"] as? [Int])
        return (gt[1], size[0], size[1])
    }

    /// The zooms a build of `sources` takes from them.
    func zoomsTaken(_ sources: [String], out: String) throws -> ClosedRange<Int> {
        var o = fx.options(sources, min: 0, max: 0, out: out)
        o.zoomsFromSources = .both
        return try BundleBuilder(options: o).build().zooms
    }

    func zooms(_ path: String) throws -> (min: Int, max: Int) {
        let levels = try BundleReader(path: path).zoomLevels().map(\.zoom)
        return (try #require(levels.min()), try #require(levels.max()))
    }

    @Test func bothEndsAreGdal2tilesChoice() throws {
        let src = try fx.geographic("g", box: GeoBounds(west: -106, south: 39, east: -104, north: 40.5), size: 300)
        let utm = try fx.projected(src, name: "utm", crs: "EPSG:32613", pixel: 150)
        var o = fx.options([utm], min: 0, max: 0, out: "auto.mbtiles")
        o.zoomsFromSources = .both
        let report = try BundleBuilder(options: o).build()
        let w = try warped(utm)
        let expectedMax = Self.gdal2tilesZoom(w.pixel)
        let expectedMin = Self.gdal2tilesZoom(w.pixel * Double(max(w.width, w.height)) / 256)
        #expect(expectedMin < expectedMax, "the case spans several zooms")
        #expect(report.zooms == expectedMin...expectedMax)
        #expect(report.zoomsFromSources == .both)
        #expect(try zooms(o.output) == (expectedMin, expectedMax))
        let meta = try BundleReader(path: o.output).metadataPairs()
        #expect(meta["minzoom"] == "\(expectedMin)" && meta["maxzoom"] == "\(expectedMax)")

        // 512-px tiles hold twice the pixels a side: the highest zoom is one lower.
        o.tileSize = 512
        o.output = fx.dir.file("auto512.mbtiles")
        #expect(try BundleBuilder(options: o).build().zooms.upperBound == Self.gdal2tilesZoom(w.pixel, tileSize: 512))
    }

    @Test func theFinestSourceSetsTheHighestZoom() throws {
        let src = try fx.geographic("m", box: GeoBounds(west: -106, south: 39, east: -105, north: 40), size: 400)
        let coarse = try fx.projected(src, name: "coarse", crs: "EPSG:32613", pixel: 1000)
        let fine = try fx.projected(src, name: "fine", crs: "EPSG:32613", pixel: 120)
        let top = try zoomsTaken([coarse, fine], out: "mix.mbtiles").upperBound
        #expect(top == Self.gdal2tilesZoom(try warped(fine).pixel))
        #expect(top > Self.gdal2tilesZoom(try warped(coarse).pixel))
    }

    @Test func givenEndsAndRangedLayersAreKept() throws {
        let src = try fx.geographic("k", box: GeoBounds(west: -106, south: 39, east: -104, north: 40.5), size: 300)
        let utm = try fx.projected(src, name: "k-utm", crs: "EPSG:32613", pixel: 150)
        let w = try warped(utm)
        let autoMax = Self.gdal2tilesZoom(w.pixel), autoMin = Self.gdal2tilesZoom(w.pixel * Double(max(w.width, w.height)) / 256)

        // --maxzoom given: the lowest zoom comes from the region, never above the given highest.
        var o = fx.options([utm], min: 0, max: autoMax - 1, out: "max.mbtiles")
        o.zoomsFromSources = .min
        #expect(try BundleBuilder(options: o).build().zooms == autoMin...(autoMax - 1))
        o.maxZoom = autoMin - 1
        o.output = fx.dir.file("low.mbtiles")
        #expect(try BundleBuilder(options: o).build().zooms == (autoMin - 1)...(autoMin - 1))

        // --minzoom given above the sources' resolution: the highest zoom is raised to it.
        o = fx.options([utm], min: autoMax + 1, max: 0, out: "min.mbtiles")
        o.zoomsFromSources = .max
        #expect(try BundleBuilder(options: o).build().zooms == (autoMax + 1)...(autoMax + 1))

        // A layer with its own range keeps it; the unranged layer extends the build to its zooms.
        o = fx.options([], min: 0, max: 0, out: "layers.mbtiles")
        o.layers = [BuildLayer(name: "base", sources: [utm], zooms: 0...2), BuildLayer(name: "detail", sources: [utm])]
        o.allowOverlap = true
        o.zoomsFromSources = .both
        #expect(try BundleBuilder(options: o).build().zooms == 0...autoMax)
    }

    @Test func aSourceSmallerThanATileIsNotUpsampled() throws {
        // 20 px of 2 km: gdal2tiles would raise its highest zoom to where the region fits one tile.
        let src = try fx.geographic("s", box: GeoBounds(west: -105.5, south: 39.8, east: -105, north: 40.2), size: 20)
        let utm = try fx.projected(src, name: "small", crs: "EPSG:32613", pixel: 2000)
        let z = try zoomsTaken([utm], out: "small.mbtiles")
        let top = Self.gdal2tilesZoom(try warped(utm).pixel)
        #expect(z == top...top)
    }

    /// A sheet whose grid is turned 12° (a geotransform with rotation terms): its pixels are as
    /// long as its diagonal says, not as its footprint's box; gdalwarp suggests the same.
    @Test func aRotatedSheetCountsItsOwnDiagonal() throws {
        let src = try fx.geographic("r", box: GeoBounds(west: -106, south: 39, east: -105.6, north: 39.3), size: 400)
        let utm = try fx.projected(src, name: "r-utm", crs: "EPSG:32613", pixel: 25)
        let gt = try #require(try RasterDataset(path: utm).describe(options: ReadOptions()).georeferencing.affine)
        let a = 12 * Double.pi / 180, size = 25.0
        let rotated = fx.dir.file("rotated.vrt")
        try GDALTools.translate(utm, rotated, ["-of", "VRT"])
        var xml = try String(contentsOfFile: rotated, encoding: .utf8)
        let line = try #require(xml.range(of: "<GeoTransform>[^<]*</GeoTransform>", options: .regularExpression))
        xml.replaceSubrange(
            line,
            with: "<GeoTransform>\(gt.c0), \(size * cos(a)), \(size * sin(a)), \(gt.c3), \(size * sin(a)), \(-size * cos(a))</GeoTransform>"
        )
        try xml.write(toFile: rotated, atomically: true, encoding: .utf8)
        let top = try zoomsTaken([rotated], out: "rotated.mbtiles").upperBound
        let w = try warped(rotated)
        #expect(top == Self.gdal2tilesZoom(w.pixel), "gdalwarp's \(w.pixel) m")
        // The box of the turned footprint is ~1.18x the diagonal's length: a zoom coarser here.
        let info = try SourceLoader.inspect(rotated, options: ReadOptions())
        let box = info.mercatorBounds
        let boxSize = hypot(box.maxX - box.minX, box.maxY - box.minY) / hypot(Double(info.width), Double(info.height))
        #expect(Self.gdal2tilesZoom(boxSize) == top - 1, "the box's \(boxSize) m would lose a zoom")
    }

    /// A raster over 200° of longitude is that wide, not 160° the other way round: 818 px put its
    /// pixels at 21 km (zoom 2), where 160° would make them 17.5 km (zoom 3, upsampled).
    @Test func aSourceWiderThanHalfTheWorld() throws {
        let src = try fx.geographic("wide", box: GeoBounds(west: -100, south: -40, east: 100, north: 40), size: 818)
        let top = try zoomsTaken([src], out: "wide.mbtiles").upperBound
        #expect(top == Self.gdal2tilesZoom(try warped(src).pixel))
    }

    /// An update keeps the zooms of the bundle it updates: a finer sheet added would otherwise
    /// move the highest zoom, and a bundle of other zooms is not an update of it.
    @Test func anUpdateKeepsItsBundlesZooms() throws {
        let src = try fx.geographic("u", box: GeoBounds(west: -106, south: 39, east: -105, north: 40), size: 300)
        let coarse = try fx.projected(src, name: "u-coarse", crs: "EPSG:32613", pixel: 600)
        var first = fx.options([coarse], min: 0, max: 0, out: "first.mbtiles")
        first.zoomsFromSources = .both
        let zooms = try BundleBuilder(options: first).build().zooms
        let fine = try fx.projected(src, name: "u-fine", crs: "EPSG:32613", pixel: 100)
        var update = fx.options([coarse, fine], min: 0, max: 0, out: "second.mbtiles")
        update.zoomsFromSources = .both
        update.update = first.output
        let report = try BundleBuilder(options: update).build()
        #expect(report.zooms == zooms && report.update != nil, "\(report.zooms) after \(zooms)")
        #expect(report.zoomsFromSources.isEmpty)
        update.update = nil
        update.output = fx.dir.file("fresh.mbtiles")
        #expect(try BundleBuilder(options: update).build().zooms.upperBound > zooms.upperBound, "built afresh, the fine sheet raises it")
    }

    /// A sheet across the antimeridian spans every longitude in its bounds, but its region is as
    /// wide as its two parts: the lowest zoom is not 0.
    @Test func aSheetAcrossTheAntimeridianIsNarrow() throws {
        let src = try fx.geographic("fiji", box: GeoBounds(west: 179, south: -17, east: 181, north: -16))
        let sheet = try fx.projected(src, name: "fiji-utm", crs: "EPSG:32760", pixel: 500)
        let z = try zoomsTaken([sheet], out: "fiji.mbtiles")
        // About 2° of longitude: zoom 7 tiles are 2.8° wide, zoom 8 ones 1.4°. Its 500 m pixels at
        // 16.5°S are 521 m in Web Mercator: zoom 8 (611 m), not 9 (306 m). (gdalwarp's suggested
        // output for it spans the world, so it is no reference here.)
        #expect(z == 7...8, "\(z)")
    }

    @Test func aZoomOnTheSourcesGridIsKept() {
        let res12 = 2 * Double.pi * 6_378_137 / 256 / 4096
        #expect(ZoomChoice.zoom(forPixelSize: res12, tileSize: 256) == 12)
        #expect(ZoomChoice.zoom(forPixelSize: res12 * 1.001, tileSize: 256) == 11)
        #expect(ZoomChoice.zoom(forPixelSize: res12 * 0.999, tileSize: 256) == 12)
        #expect(ZoomChoice.zoom(forPixelSize: 1e-6, tileSize: 256) == TileID.maxZoom)
        #expect(ZoomChoice.zoom(fitting: ZoomChoice.worldWidth, ZoomChoice.worldWidth / 2) == 0)
        #expect(ZoomChoice.zoom(fitting: ZoomChoice.worldWidth / 4, 1) == 2)
        #expect(ZoomChoice.zoom(fitting: ZoomChoice.worldWidth / 4 * 1.01, 1) == 1)
        // A tile's own bounds through degrees and back: a hair wider than the tile, still its zoom.
        let t = TileID(z: 9, x: 100, y: 200)!
        let b = t.mercatorBounds, g = WebMercator.unproject(x: b.minX, y: b.minY), h = WebMercator.unproject(x: b.maxX, y: b.maxY)
        let p = WebMercator.project(lon: g.lon, lat: g.lat), q = WebMercator.project(lon: h.lon, lat: h.lat)
        #expect(ZoomChoice.zoom(fitting: q.x - p.x, q.y - p.y) == 9)
    }
}
