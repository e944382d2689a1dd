import Foundation
import SourceReaders
import Testing
import TileGeometry
import TileStore
@testable import BundleBuilder
import TrailMapTestSupport

/// Sources whose outline the footprint's grid of points only comes near: a pole inside a polar
/// stereographic raster, the outline of a world Mollweide, the limb of an orthographic disc.
@Suite(.computeThreads) struct ProjectionDomainTests {
    let fx = RealSourceFixture()
    static func colour(_: Int, _: Int) -> (UInt8, UInt8, UInt8, UInt8) { (200, 120, 60, 255) }

    @Test func aPoleInsideTheRasterSpansEveryLongitude() throws {
        let src = try fx.geographic("cap", box: GeoBounds(west: -180, south: -90, east: 180, north: -60), size: 360, color: Self.colour)
        let polar = try fx.projected(src, name: "cap-3031", crs: "EPSG:3031", pixel: 25_000)
        let info = try SourceLoader.inspect(polar, options: ReadOptions())
        #expect(info.bounds.west == -180 && info.bounds.east == 180 && info.bounds.south == -90, "\(info.bounds)")
        #expect(info.parts.count == 1, "one part, not split at the antimeridian")

        // A quadrant with a corner at the pole (polar mosaics are tiled so) covers a quarter of
        // the longitudes; a raster in another CRS of degrees reaching 90°N is no polar cap either.
        let quadrant = fx.dir.file("quadrant.tif")
        try GDALTools.translate(polar, quadrant, ["-projwin", "0", "3000000", "3000000", "0"])
        let q = try SourceLoader.inspect(quadrant, options: ReadOptions())
        #expect(q.bounds.east - q.bounds.west < 180, "not every longitude: \(q.bounds)")
        // Each of the four quadrants spans its own 90 degrees: the pole's point has no longitude
        // (PROJ gives it 0), and an edge on the antimeridian is the quadrant's side of it (it
        // spanned the world, or 180 degrees).
        let quadrants: [(window: [String], west: Double, east: Double)] = [
            (["0", "3000000", "3000000", "0"], 0, 90), (["-3000000", "3000000", "0", "0"], -90, 0),
            (["0", "0", "3000000", "-3000000"], 90, 180), (["-3000000", "0", "0", "-3000000"], -180, -90)
        ]
        for (i, quarter) in quadrants.enumerated() {
            let file = fx.dir.file("quarter\(i).tif")
            try GDALTools.run(
                "gdal_create",
                [
                    "-q", "-outsize", "60", "60", "-bands", "3", "-burn", "200", "-a_srs", "EPSG:3031",
                    "-a_ullr"
                ] + quarter.window + [file])
            let b = try SourceLoader.inspect(file, options: ReadOptions())
            #expect(
                abs(b.bounds.west - quarter.west) < 0.5 && abs(b.bounds.east - quarter.east) < 0.5 && b.parts.count == 1,
                "\(quarter.window): \(b.bounds), \(b.parts.count) part(s)")
        }
        let north = try fx.geographic("north", box: GeoBounds(west: -20, south: 70, east: 40, north: 90), size: 120, color: Self.colour)
        let nad83 = fx.dir.file("north-4269.tif")
        try GDALTools.translate(north, nad83, ["-a_srs", "EPSG:4269"])
        let n = try SourceLoader.inspect(nad83, options: ReadOptions())
        #expect(n.bounds.west > -21 && n.bounds.east < 41, "\(n.bounds)")
    }

    /// Every z3 tile where `gdalwarp -t_srs EPSG:3857` draws a pixel of `source` is in the bundle.
    func expectTilesWhereGDALDraws(_ source: String, name: String) throws {
        let reader = try fx.build(fx.options([source], min: 3, max: 3, out: name + ".mbtiles"))
        let ref = fx.dir.file(name + "-3857.tif")
        let e = WebMercator.originShift
        try GDALTools.warp(
            source, ref,
            [
                "-t_srs", "EPSG:3857", "-te", "\(-e)", "\(-e)", "\(e)", "\(e)", "-ts", "2048", "2048",
                "-dstalpha", "-r", "near"
            ])
        let ds = try RasterDataset(path: ref)
        let d = try ds.describe(options: ReadOptions())
        var px = [UInt8](repeating: 0, count: 2048 * 2048 * 4)
        try px.withUnsafeMutableBufferPointer {
            try ds.readRGBA(d, level: 0, x0: 0, y0: 0, width: 2048, height: 2048, into: $0.baseAddress!)
        }
        var expected = 0
        for ty in 0..<8 {
            for tx in 0..<8 {
                var drawn = 0
                for y in (ty * 256)..<(ty * 256 + 256) {
                    for x in (tx * 256)..<(tx * 256 + 256) where px[(y * 2048 + x) * 4 + 3] > 0 { drawn += 1 }
                }
                guard drawn > 0 else { continue }
                expected += 1
                #expect(
                    try reader.tile(#require(TileID(z: 3, x: tx, y: ty))) != nil,
                    "\(name): gdalwarp draws \(drawn) px in tile 3/\(tx)/\(ty)")
            }
        }
        #expect(expected >= 30, "\(name): the case covers much of the world (\(expected) tiles)")
    }

    @Test func aWorldMollweideReachesItsTopAndBottomRows() throws {
        let world = try fx.geographic("world", box: GeoBounds(west: -180, south: -90, east: 180, north: 90), size: 360, color: Self.colour)
        let moll = try fx.projected(world, name: "world-moll", crs: "ESRI:54009", pixel: 100_000)
        let info = try SourceLoader.inspect(moll, options: ReadOptions())
        #expect(info.bounds.north > 85.05 && info.bounds.south < -85.05, "\(info.bounds)")
        try expectTilesWhereGDALDraws(moll, name: "moll")
    }

    /// A geostationary full disc: the square's corners lie off the Earth. The coarse grid's
    /// bounds stopped near ±76° of latitude and six z3 tiles at the top and bottom were lost.
    @Test func aGeostationaryFullDiscReachesItsTopAndBottom() throws {
        let disc = fx.dir.file("geos.tif")
        try GDALTools.run(
            "gdal_create",
            [
                "-q", "-outsize", "400", "400", "-bands", "3", "-burn", "200", "-a_srs",
                "+proj=geos +h=35785831 +lon_0=-75 +sweep=x +datum=WGS84",
                "-a_ullr", "-5434177", "5434177", "5434177", "-5434177", disc
            ])
        let info = try SourceLoader.inspect(disc, options: ReadOptions())
        #expect(info.bounds.north > 81 && info.bounds.south < -81, "\(info.bounds)")
        #expect(info.bounds.east - info.bounds.west < 200, "\(info.bounds)")
        try expectTilesWhereGDALDraws(disc, name: "geos")
    }

    @Test func theLimbOfAnOrthographicDiscIsDrawn() throws {
        let world = try fx.geographic("globe", box: GeoBounds(west: -180, south: -90, east: 180, north: 90), size: 360, color: Self.colour)
        let ortho = try fx.projected(world, name: "globe-ortho", crs: "+proj=ortho +lat_0=40 +lon_0=-100 +datum=WGS84", pixel: 100_000)
        try expectTilesWhereGDALDraws(ortho, name: "ortho")
    }
}
