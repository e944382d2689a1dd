import Foundation
import Raster
import SourceReaders
import Testing
import TileGeometry
import TileStore
@testable import BundleBuilder
import TrailMapTestSupport

/// PNGs read by TrailMap's own decoder take the georeference GDAL reads for them where a world
/// file alone does not say it: the CRS in an `.aux.xml` (what `gdal_translate -of PNG -co
/// WORLDFILE=YES` writes), and flipped or rotated world files. Each builds the same tiles as the
/// same raster as a GeoTIFF, which GDAL reads.
@Suite(.computeThreads) struct PNGGeoreferenceTests {
    let fx = RealSourceFixture()

    /// Tiles of a build of `source` and of `reference` at zoom 14 around the box's middle: the
    /// same tiles, pixel for pixel.
    func expectSameTiles(_ source: String, _ reference: String, _ note: Comment) throws {
        let (lon, lat) = RealSourceTests.box.center
        let area = GeoBounds(west: lon - 0.03, south: lat - 0.02, east: lon + 0.03, north: lat + 0.02)
        var tiles = [[(TileID, RGBAImage)]]()
        for (i, path) in [source, reference].enumerated() {
            var o = fx.options([path], min: 14, max: 14, out: "\(i)-\(UUID().uuidString.prefix(6)).mbtiles", resampling: .nearest)
            o.clipBounds = area
            tiles.append(try fx.allTiles(try fx.build(o), zooms: 14...14, bounds: area))
        }
        #expect(tiles[0].count >= 4 && tiles[0].map(\.0) == tiles[1].map(\.0), "\(note): \(tiles[0].count) and \(tiles[1].count) tiles")
        for ((t, a), (_, b)) in zip(tiles[0], tiles[1]) {
            #expect(a.pixels == b.pixels, "\(note): tile \(t) differs (\(RealSourceFixture.mismatch(a, b, tolerance: 0).fraction))")
        }
    }

    @Test(arguments: [("EPSG:32613", 250.0), ("EPSG:4267", 0.0025)])
    func aPNGGDALWroteIsPlacedInTheCRSOfItsAuxXML(crs: String, pixel: Double) throws {
        let src = try fx.geographic("src", box: RealSourceTests.box, size: 200)
        let tif = try fx.projected(src, name: "declared", crs: crs, pixel: pixel, collar: .alpha)
        let png = fx.dir.file("declared.png")
        try GDALTools.translate(tif, png, ["-of", "PNG", "-co", "WORLDFILE=YES"])
        let aux = try String(contentsOfFile: png + ".aux.xml", encoding: .utf8)
        #expect(aux.contains("SRS"), "gdal_translate writes the CRS beside the PNG, not in the world file")
        try expectSameTiles(png, tif, "\(crs) PNG")
    }

    @Test(arguments: [
        "-0.005\n0\n0\n-0.005\n-104.9975\n39.9975\n", "0.005\n0\n0\n0.005\n-105.9975\n39.0025\n",
        "0.004\n0.001\n0.001\n-0.004\n-105.9975\n39.9975\n"
    ])
    func aFlippedOrRotatedWorldFileIsReadAsGDALReadsIt(world: String) throws {
        let src = try fx.geographic("src", box: RealSourceTests.box, size: 200)
        let png = fx.dir.file("flipped.png")
        try GDALTools.translate(src, png, ["-of", "PNG"])
        try? FileManager.default.removeItem(atPath: png + ".aux.xml")
        try world.write(toFile: fx.dir.file("flipped.pgw"), atomically: true, encoding: .utf8)
        let tif = fx.dir.file("flipped.tif")
        try GDALTools.translate(png, tif, ["-a_srs", "EPSG:4326"])
        try expectSameTiles(png, tif, "world file \(world.split(separator: "\n").prefix(4).joined(separator: " "))")
    }
}
