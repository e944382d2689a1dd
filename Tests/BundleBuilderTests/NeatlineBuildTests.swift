import Foundation
import Raster
import SourceReaders
import Testing
import TileGeometry
import TileStore
@testable import BundleBuilder
import TrailMapTestSupport

/// Map sheets whose collar lies outside a neatline: a geospatial PDF made by GDAL with one, and a
/// GeoTIFF carrying a turned quadrilateral one as converted PDFs do. Nothing outside the neatline
/// is drawn, everything inside is.
@Suite(.computeThreads) struct NeatlineBuildTests {
    let fx = RealSourceFixture()

    /// A UTM sheet (250 m pixels) over 106-105°W, 39-40°N.
    func sheet() throws -> String {
        let src = try fx.geographic("sheet", box: GeoBounds(west: -106, south: 39, east: -105, north: 40), size: 300)
        return try fx.projected(src, name: "sheet-utm", crs: "EPSG:32613", pixel: 250)
    }

    /// Checks every pixel of the bundle's `zoom` tiles against `inside` (signed distance into the
    /// neatline, UTM 13N metres): clearly outside is transparent, clearly inside opaque (unless
    /// `expectCut` is false). The pixels clearly outside and inside, and those outside drawn.
    func check(
        _ reader: BundleReader, zoom: Int, margin: Double, expectCut: Bool = true,
        inside: (Double, Double) -> Double
    ) throws -> (outside: Int, inside: Int, drawnOutside: Int) {
        let toUTM = try CoordinateTransformer(from: .webMercator, to: SpatialReference(userInput: "EPSG:32613"))
        var counts = (outside: 0, inside: 0, drawnOutside: 0)
        for level in try reader.zoomLevels() where level.zoom == zoom {
            for y in level.minY...level.maxY {
                for x in level.minX...level.maxX {
                    let t = try #require(TileID(z: zoom, x: x, y: y))
                    guard let image = try fx.tile(reader, t) else { continue }
                    let b = t.mercatorBounds, px = (b.maxX - b.minX) / 256
                    var xs = [Double](), ys = [Double]()
                    for r in 0..<256 {
                        for c in 0..<256 {
                            xs.append(b.minX + (Double(c) + 0.5) * px)
                            ys.append(b.maxY - (Double(r) + 0.5) * px)
                        }
                    }
                    toUTM.transform(xs: &xs, ys: &ys)
                    for i in xs.indices {
                        let d = inside(xs[i], ys[i]), alpha = image.pixels[i * 4 + 3]
                        if d < -margin {
                            counts.outside += 1
                            if alpha > 0 { counts.drawnOutside += 1 }
                            if expectCut { #expect(alpha == 0, "tile \(t) pixel \(i % 256),\(i / 256) is \(-d) m outside the neatline") }
                        } else if d > margin {
                            counts.inside += 1
                            if expectCut { #expect(alpha == 255, "tile \(t) pixel \(i % 256),\(i / 256) is \(d) m inside the neatline") }
                        }
                    }
                }
            }
        }
        return counts
    }

    @Test func aGeospatialPDFsCollarIsNotDrawn() throws {
        let utm = try sheet()
        let d = try RasterDataset(path: utm).describe(options: ReadOptions())
        let gt = try #require(d.georeferencing.affine)
        // A rectangle a fifth of the way in from each side: the rest is the collar.
        let w = Double(d.width) * 250, h = Double(d.height) * 250
        let (x0, x1, y1, y0) = (gt.c0 + w / 5, gt.c0 + 4 * w / 5, gt.c3 - h / 5, gt.c3 - 4 * h / 5)
        let pdf = fx.dir.file("sheet.pdf")
        try GDALTools.translate(
            utm, pdf, ["-of", "PDF", "-co", "NEATLINE=POLYGON((\(x0) \(y1),\(x1) \(y1),\(x1) \(y0),\(x0) \(y0),\(x0) \(y1)))"])
        let read = try RasterDataset(path: pdf).describe(options: ReadOptions())
        let neatline = try #require(read.neatline, "GDAL reports the PDF's neatline")
        #expect(neatline.xs.count == 4)
        let reader = try fx.build(fx.options([pdf], min: 8, max: 10, out: "pdf.mbtiles"))
        // Distance inside the rectangle (negative outside), in metres.
        let counts = try check(reader, zoom: 10, margin: 300) { x, y in min(x - x0, x1 - x, y - y0, y1 - y) }
        #expect(counts.outside > 20_000 && counts.inside > 20_000, "\(counts)")
        // The bundle's bounds are the neatline's, not the page's: the collar is ~0.2° wide.
        var problems = [String]()
        let bounds = try reader.metadata(problems: &problems).bounds
        var lons = [x0, x1, x0, x1], lats = [y0, y0, y1, y1]
        try CoordinateTransformer(from: SpatialReference(userInput: "EPSG:32613"), to: .wgs84).transform(xs: &lons, ys: &lats)
        let tolerance = 0.01 // under two 250 m pixels
        #expect(
            abs(bounds.west - lons.min()!) < tolerance && abs(bounds.east - lons.max()!) < tolerance
                && abs(bounds.south - lats.min()!) < tolerance && abs(bounds.north - lats.max()!) < tolerance,
            "bounds \(bounds) vs the neatline's \(lons.min()!)...\(lons.max()!), \(lats.min()!)...\(lats.max()!)")

        // Warped to Web Mercator, the raster keeps the PDF's neatline in UTM metres: off the
        // raster, so not applied (the sheet is drawn, collar and all), and said so.
        let warped = fx.dir.file("warped.tif")
        try GDALTools.warp(pdf, warped, ["-t_srs", "EPSG:3857"])
        #expect(try GDALTools.run("gdalinfo", [warped]).contains("NEATLINE=POLYGON"), "gdalwarp copied the metadata")
        let info = try SourceLoader.inspect(warped, options: ReadOptions())
        guard case let .raster(wd) = info.kind else { Issue.record("read by GDAL"); return }
        #expect(wd.neatline == nil && wd.neatlineOffTheRaster)
        let whole = try fx.build(fx.options([warped], min: 10, max: 10, out: "warped.mbtiles"))
        let drawn = try check(whole, zoom: 10, margin: 300, expectCut: false) { x, y in min(x - x0, x1 - x, y - y0, y1 - y) }
        #expect(drawn.drawnOutside > 20_000, "\(drawn)")
    }

    @Test func aTurnedNeatlineInAGeoTIFFCutsItsCollar() throws {
        let utm = try sheet()
        let d = try RasterDataset(path: utm).describe(options: ReadOptions())
        let gt = try #require(d.georeferencing.affine)
        let w = Double(d.width) * 250, h = Double(d.height) * 250
        // A quadrilateral inside the sheet, its sides not along the grid (as a lat/lon quad on UTM).
        let corners = [
            (gt.c0 + 0.15 * w, gt.c3 - 0.10 * h), (gt.c0 + 0.90 * w, gt.c3 - 0.18 * h),
            (gt.c0 + 0.82 * w, gt.c3 - 0.92 * h), (gt.c0 + 0.08 * w, gt.c3 - 0.85 * h)
        ]
        let ring = (corners + [corners[0]]).map { "\($0.0) \($0.1)" }.joined(separator: ",")
        let tif = fx.dir.file("quad.tif")
        try GDALTools.translate(utm, tif, ["-mo", "NEATLINE=POLYGON((\(ring)))"])
        let reader = try fx.build(fx.options([tif], min: 8, max: 10, out: "quad.mbtiles"))
        // Signed distance to the quadrilateral (clockwise in x east, y north): the least of its
        // edges' inward distances.
        func inside(_ x: Double, _ y: Double) -> Double {
            (0..<4).map { k -> Double in
                let (ax, ay) = corners[k], (bx, by) = corners[(k + 1) % 4]
                let len = hypot(bx - ax, by - ay)
                return ((bx - ax) * (ay - y) - (by - ay) * (ax - x)) / len
            }.min()!
        }
        let counts = try check(reader, zoom: 10, margin: 300, inside: inside)
        #expect(counts.outside > 20_000 && counts.inside > 20_000, "\(counts)")

        #expect(counts.drawnOutside == 0)
        // Without the neatline the same sheet draws its collar.
        let plain = try fx.build(fx.options([utm], min: 10, max: 10, out: "plain.mbtiles"))
        let drawn = try check(plain, zoom: 10, margin: 300, expectCut: false, inside: inside)
        #expect(drawn.drawnOutside > 20_000, "\(drawn)")
    }
}
