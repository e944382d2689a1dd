import Foundation
import Testing
import TileGeometry
import TileStore
@testable import BundleBuilder
import TrailMapTestSupport

/// Zoom ranges taken from the sources (`trailmap build` without `--minzoom`/`--maxzoom`), checked
/// against gdal2tiles' rule applied to gdalwarp's own choice of the warped raster.
@Suite struct SourceZoomTests {
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
        var o = fx.options([coarse, fine], min: 0, max: 0, out: "mix.mbtiles")
        o.zoomsFromSources = .both
        let top = try BundleBuilder(options: o).build().zooms.upperBound
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
        var o = fx.options([utm], min: 0, max: 0, out: "small.mbtiles")
        o.zoomsFromSources = .both
        let z = try BundleBuilder(options: o).build().zooms
        let top = Self.gdal2tilesZoom(try warped(utm).pixel)
        #expect(z == top...top)
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
    }
}
