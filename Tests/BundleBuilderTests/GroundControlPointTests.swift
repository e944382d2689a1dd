import Foundation
import Raster
import SourceReaders
import Testing
import TileGeometry
import TileStore
@testable import BundleBuilder
import TrailMapTestSupport

/// Sources georeferenced by ground control points only, as scanned maps are: made by GDAL from a
/// UTM sheet, its geotransform replaced by a grid of points in longitude/latitude (a relation no
/// affine transform holds), and checked against gdalwarp's rendering of the same file and against
/// TrailMap's rendering of the original sheet.
@Suite(.computeThreads) struct GroundControlPointTests {
    let fx = RealSourceFixture()

    /// The sheet and its copy georeferenced by `n` × `n` control points in EPSG:4326.
    func sheets(points n: Int) throws -> (sheet: String, gcp: String) {
        let src = try fx.geographic("geo", box: RealSourceTests.box)
        let sheet = try fx.projected(src, name: "utm", crs: "EPSG:32613", pixel: 250)
        let d = try RasterDataset(path: sheet).describe(options: ReadOptions())
        let gt = try #require(d.georeferencing.affine)
        var cols = [Double](), rows = [Double](), xs = [Double](), ys = [Double]()
        for j in 0..<n {
            for i in 0..<n {
                let c = Double(i) / Double(n - 1) * Double(d.width), r = Double(j) / Double(n - 1) * Double(d.height)
                let p = gt.apply(col: c, row: r)
                cols.append(c)
                rows.append(r)
                xs.append(p.x)
                ys.append(p.y)
            }
        }
        try CoordinateTransformer(from: d.crs, to: .wgs84).transform(xs: &xs, ys: &ys)
        var args = ["-a_srs", "EPSG:4326", "-co", "TILED=YES", "-co", "COMPRESS=DEFLATE"]
        for k in cols.indices { args += ["-gcp", "\(cols[k])", "\(rows[k])", "\(xs[k])", "\(ys[k])"] }
        let gcp = fx.dir.file("gcp.tif")
        try GDALTools.translate(sheet, gcp, args)
        return (sheet, gcp)
    }

    /// Polynomial (GDAL's automatic order: 2 for 25 points) and thin-plate spline fits place the
    /// checkerboard where gdalwarp does within half a pixel, match the original sheet's tiles,
    /// and paint none of the collar.
    @Test(arguments: [GCPTransform.auto, .tps])
    func geolocatesLikeGDALWarp(_ fit: GCPTransform) throws {
        let (sheet, gcp) = try sheets(points: 5)
        let description = try RasterDataset(path: gcp).describe(options: ReadOptions(gcpTransform: fit))
        guard case let .groundControlPoints(points, method) = description.georeferencing else {
            Issue.record("\(gcp) read as \(description.georeferencing)")
            return
        }
        #expect(points.count == 25 && method == fit)
        let (lon, lat) = RealSourceTests.box.center
        let tile = WebMercator.tile(lon: lon, lat: lat, zoom: 9)
        let extra = fit == .tps ? ["-tps"] : []

        var near = fx.options([gcp], min: 9, max: 9, out: "near.mbtiles", resampling: .nearest)
        near.read.gcpTransform = fit
        let ours = try #require(try fx.tile(fx.build(near), tile))
        let theirs = try fx.reference(tile, gcp, resampling: "near", extra: extra)
        let (fraction, compared) = RealSourceFixture.mismatch(ours, theirs)
        #expect(compared > 20_000, "the tile and the reference overlap")
        #expect(fraction * 19 < 0.5, "mean offset \(fraction * 19) px against gdalwarp (\(fraction * 100)% of pixels differ)")

        var avg = fx.options([gcp], min: 6, max: 9, out: "avg.mbtiles")
        avg.read.gcpTransform = fit
        let bundle = try fx.build(avg)
        let original = try fx.build(fx.options([sheet], min: 6, max: 9, out: "original.mbtiles"))
        let a = try #require(try fx.tile(bundle, tile)), b = try #require(try fx.tile(original, tile))
        #expect(RealSourceFixture.opaquePSNR(a, b) >= 35, "the control points place the sheet where its geotransform does")
        for (t, image) in try fx.allTiles(bundle, zooms: 6...9, bounds: RealSourceTests.box) {
            #expect(RealSourceFixture.darkPixels(image) == 0, "tile \(t) paints nodata as colour")
        }
    }

    /// A sheet in degrees whose east edge is 180°: control points a hair off put its fitted edge
    /// just past 180° (within half a pixel), which is not a crossing of the antimeridian.
    @Test func aSheetEndingAt180IsRead() throws {
        let src = try fx.geographic("edge", box: GeoBounds(west: 175, south: -17, east: 180, north: -16), size: 400)
        let gcp = fx.dir.file("edge-gcp.tif")
        let points: [(Double, Double, Double, Double)] = [
            (0, 0, 175, -16), (400, 0, 180, -16), (0, 400, 175, -17),
            (400, 400, 180.003, -17), (200, 200, 177.5, -16.5)
        ]
        try GDALTools.translate(src, gcp, ["-a_srs", "EPSG:4326"] + points.flatMap { ["-gcp", "\($0.0)", "\($0.1)", "\($0.2)", "\($0.3)"] })
        let info = try SourceLoader.inspect(gcp, options: ReadOptions())
        #expect(info.bounds.east > 180 && info.bounds.east < 180.01, "the fit overshoots 180 slightly: \(info.bounds)")
        let reader = try fx.build(fx.options([gcp], min: 6, max: 8, out: "edge.mbtiles"))
        #expect(try reader.zoomLevels().map(\.zoom) == [6, 7, 8])
    }

    /// The fit is part of what decides the tiles: a build with another fit is not an update of the same settings.
    @Test func theFitIsInTheFingerprint() throws {
        var a = fx.options(["x.tif"], min: 5, max: 6)
        let auto = BuildFingerprint(options: a, sources: []).tileSettings
        a.read.gcpTransform = .tps
        #expect(BuildFingerprint(options: a, sources: []).tileSettings != auto)
    }

    /// A scanned map saved as PNG by a georeferencer keeps its control points in `.aux.xml`, not a
    /// world file: GDAL reads it, and it lands where the GeoTIFF with the same points does.
    @Test func aPNGWithControlPointsInAuxXML() throws {
        let (_, gcp) = try sheets(points: 5)
        let png = fx.dir.file("scan.png")
        try GDALTools.translate(gcp, png, ["-of", "PNG"])
        #expect(FileManager.default.fileExists(atPath: png + ".aux.xml"))
        let a = try fx.build(fx.options([png], min: 8, max: 9, out: "png.mbtiles"))
        let b = try fx.build(fx.options([gcp], min: 8, max: 9, out: "tif.mbtiles"))
        let (lon, lat) = RealSourceTests.box.center
        let t = WebMercator.tile(lon: lon, lat: lat, zoom: 9)
        let ours = try #require(try fx.tile(a, t)), theirs = try #require(try fx.tile(b, t))
        #expect(ours.pixels == theirs.pixels)
    }
}
