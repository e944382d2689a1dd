import Foundation
import Raster
import SourceReaders
import Testing
import TileGeometry
import TileStore
@testable import BundleBuilder
import TrailMapTestSupport

/// Builds from real GeoTIFFs made by GDAL in projected CRSs, checked against gdalwarp.
@Suite(.computeThreads) struct RealSourceTests {
    let fx = RealSourceFixture()
    static let box = GeoBounds(west: -106, south: 39, east: -105, north: 40)

    enum Projection: String, CaseIterable {
        case utmNorthTiledDeflate, utmSouthStrippedLZW, albersJPEGMask, statePlaneFeetAlpha, lambertPackBits

        var crs: String {
            switch self {
            case .utmNorthTiledDeflate: "EPSG:32613"
            case .utmSouthStrippedLZW: "EPSG:32723"
            case .albersJPEGMask: "EPSG:5070"
            case .statePlaneFeetAlpha: "EPSG:2232" // NAD83 / Colorado Central (ftUS)
            case .lambertPackBits: "+proj=lcc +lat_0=39 +lon_0=-106 +lat_1=37 +lat_2=41 +datum=WGS84 +units=m +no_defs"
            }
        }
        var box: GeoBounds {
            self == .utmSouthStrippedLZW ? GeoBounds(west: -46, south: -23, east: -45, north: -22) : RealSourceTests.box
        }
        var pixel: Double { self == .statePlaneFeetAlpha ? 820 : 250 }
        var collar: RealSourceFixture.Collar {
            switch self {
            case .albersJPEGMask: .mask
            case .statePlaneFeetAlpha: .alpha
            default: .nodata
            }
        }
        var creation: [String] {
            switch self {
            case .utmNorthTiledDeflate: ["-co", "TILED=YES", "-co", "COMPRESS=DEFLATE"]
            case .utmSouthStrippedLZW: ["-co", "COMPRESS=LZW"]
            case .albersJPEGMask: ["-co", "TILED=YES", "-co", "COMPRESS=JPEG", "-co", "JPEG_QUALITY=95"]
            case .statePlaneFeetAlpha: ["-co", "COMPRESS=DEFLATE", "-co", "PREDICTOR=2"]
            case .lambertPackBits: ["-co", "TILED=YES", "-co", "COMPRESS=PACKBITS"]
            }
        }
    }

    /// A checkerboard in each CRS: TrailMap's nearest-neighbour tile and gdalwarp's agree within
    /// half a pixel on average (estimated from the share of pixels on the wrong side of a cell
    /// edge), the average-resampled tiles within 30 dB, and no pixel of the collar (nodata,
    /// alpha or mask) is painted.
    @Test(arguments: Projection.allCases)
    func geolocatesLikeGDALWarp(_ p: Projection) throws {
        let src = try fx.geographic("geo-\(p.rawValue)", box: p.box)
        let sheet = try fx.projected(src, name: p.rawValue, crs: p.crs, pixel: p.pixel, collar: p.collar, creation: p.creation)
        let (lon, lat) = p.box.center
        let tile = WebMercator.tile(lon: lon, lat: lat, zoom: 9)

        let near = try fx.build(fx.options([sheet], min: 9, max: 9, out: "near.mbtiles", resampling: .nearest))
        let ours = try #require(try fx.tile(near, tile))
        let theirs = try fx.reference(tile, sheet, resampling: "near")
        let (fraction, compared) = RealSourceFixture.mismatch(ours, theirs)
        #expect(compared > 20_000, "the tile and the reference overlap")
        // A checker cell spans ~15-19 tile pixels here; a shift of d pixels puts ~d/cell of them wrong.
        let cellPixels = 19.0
        #expect(
            fraction * cellPixels < 0.5, "mean offset \(fraction * cellPixels) px against gdalwarp (\(fraction * 100)% of pixels differ)")

        let avg = try fx.build(fx.options([sheet], min: 6, max: 9, out: "avg.mbtiles"))
        let oursAvg = try #require(try fx.tile(avg, tile))
        let theirsAvg = try fx.reference(tile, sheet, resampling: "average")
        #expect(RealSourceFixture.opaquePSNR(oursAvg, theirsAvg) >= 30)
        // Where gdalwarp has no data (the collar, outside the sheet) TrailMap is transparent too,
        // up to the one-pixel antialiased edge.
        var painted = 0
        for q in stride(from: 0, to: theirsAvg.pixels.count, by: 4) where theirsAvg.pixels[q + 3] == 0 && oursAvg.pixels[q + 3] == 255 {
            painted += 1
        }
        #expect(painted < 256 * 4, "\(painted) opaque pixels where gdalwarp's are transparent")
        for (t, image) in try fx.allTiles(avg, zooms: 6...9, bounds: p.box) {
            #expect(RealSourceFixture.darkPixels(image) == 0, "tile \(t) paints nodata as colour")
        }
    }

    /// Two adjacent sheets in UTM, each with a collar that overlaps the other: neither collar
    /// paints over the neighbour, and the seam has no gap.
    @Test func mosaicCollarsNeverCoverNeighbours() throws {
        let west = try fx.geographic("west", box: GeoBounds(west: -106, south: 39, east: -105.5, north: 40), size: 200) { _, _ in
            (210, 60, 50, 255)
        }
        let east = try fx.geographic("east", box: GeoBounds(west: -105.5, south: 39, east: -105, north: 40), size: 200) { _, _ in
            (50, 90, 210, 255)
        }
        let w = try fx.projected(west, name: "west-utm", crs: "EPSG:32613", pixel: 250)
        let e = try fx.projected(east, name: "east-utm", crs: "EPSG:32613", pixel: 250)
        for order in [[w, e], [e, w]] {
            let reader = try fx.build(fx.options(order, min: 8, max: 10, out: "mosaic-\(order[0].hashValue).mbtiles"))
            func colour(_ lon: Double, _ lat: Double) throws -> [UInt8] {
                let t = WebMercator.tile(lon: lon, lat: lat, zoom: 10)
                let image = try #require(try fx.tile(reader, t))
                let b = t.mercatorBounds
                let (x, y) = WebMercator.project(lon: lon, lat: lat)
                let i = Int((x - b.minX) / (b.maxX - b.minX) * 256), j = Int((b.maxY - y) / (b.maxY - b.minY) * 256)
                return Array(image.pixels[((j * 256 + i) * 4)..<((j * 256 + i) * 4 + 4)])
            }
            for lat in [39.1, 39.5, 39.9] {
                #expect(try colour(-105.52, lat) == [210, 60, 50, 255], "west sheet beside the seam at \(lat)")
                #expect(try colour(-105.48, lat) == [50, 90, 210, 255], "east sheet beside the seam at \(lat)")
            }
            for (t, image) in try fx.allTiles(reader, zooms: 8...10, bounds: Self.box) {
                #expect(RealSourceFixture.darkPixels(image) == 0, "tile \(t)")
            }
        }
    }

    /// Where two sheets meet, the tile pixels each covers in part are covered by both together:
    /// the seam is opaque (no line the map beneath shows through), and in a half-opaque layer the
    /// seam is as see-through as the sheets, not less.
    @Test func theSeamBetweenSheetsIsOpaque() throws {
        let west = try fx.geographic("west", box: GeoBounds(west: -106, south: 39, east: -105.5, north: 40), size: 200) { _, _ in
            (210, 60, 50, 255)
        }
        let east = try fx.geographic("east", box: GeoBounds(west: -105.5, south: 39, east: -105, north: 40), size: 200) { _, _ in
            (50, 90, 210, 255)
        }
        // On one grid (-tap), as a series' sheets are: each UTM pixel lies in one sheet or the other.
        let w = try fx.projected(west, name: "west-utm", crs: "EPSG:32613", pixel: 250, creation: ["-tap"])
        let e = try fx.projected(east, name: "east-utm", crs: "EPSG:32613", pixel: 250, creation: ["-tap"])
        // The tiles wholly inside both sheets' union, at zoom 11.
        let inner = GeoBounds(west: -105.9, south: 39.1, east: -105.1, north: 39.9)
        func seamTiles(_ reader: BundleReader) throws -> [(TileID, RGBAImage)] {
            try fx.allTiles(reader, zooms: 11...11, bounds: inner).filter { t, _ in
                let b = t.geoBounds
                return b.west > inner.west && b.east < inner.east && b.south > inner.south && b.north < inner.north
                    && b.west < -105.5 && b.east > -105.5
            }
        }
        let opaque = try fx.build(fx.options([w, e], min: 10, max: 11, out: "seam.mbtiles"))
        let tiles = try seamTiles(opaque)
        #expect(tiles.count >= 4)
        for (t, image) in tiles {
            let alphas = stride(from: 3, to: image.pixels.count, by: 4).map { image.pixels[$0] }
            #expect(alphas.allSatisfy { $0 == 255 }, "tile \(t): \(alphas.filter { $0 < 255 }.count) pixels see-through at the seam")
        }
        var o = fx.options([w, e], min: 10, max: 11, out: "seam-half.mbtiles")
        o.layers[0].opacity = 0.5
        for (t, image) in try seamTiles(try fx.build(o)) {
            let alphas = Set(stride(from: 3, to: image.pixels.count, by: 4).map { image.pixels[$0] })
            #expect(alphas == [128], "tile \(t): alphas \(alphas.sorted())")
        }
    }
}
