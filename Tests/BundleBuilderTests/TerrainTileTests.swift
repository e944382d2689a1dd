import Foundation
import Raster
import SourceReaders
import Terrain
import Testing
import TileGeometry
import TileStore
@testable import BundleBuilder
import TrailMapTestSupport

/// Terrain tiles decode to the DEM: a geographic ramp (linear, so bilinear and average samples of
/// it are exact) within the encoding's step at every zoom, in both encodings, PNG and lossless
/// WebP, 256 and 512 px; the UTM cone within 0.5 m RMSE of gdalwarp's bilinear samples at the
/// DEM's own zoom; voids transparent; feet converted to metres.
@Suite(.computeThreads) struct TerrainTileTests {
    let fx = TerrainFixture()
    static let west = -105.6, south = 39.9

    /// A ramp in EPSG:4326: 3000 m a degree eastwards, 1500 m a degree northwards, in `unitScale` units.
    func ramp(_ name: String = "ramp", unitScale: Double = 1, voids: Bool = false) throws -> String {
        try fx.dem(name, size: 300, cell: 0.0005, x0: Self.west, y0: Self.south, srs: "EPSG:4326") { lon, lat in
            if voids, lon < Self.west + 0.03, lat < Self.south + 0.03 { return nil }
            return Self.elevation(lon: lon, lat: lat) / unitScale
        }
    }

    static func elevation(lon: Double, lat: Double) -> Double { 1200 + 3000 * (lon - west) + 1500 * (lat - south) }

    /// The worst difference between a tile's decoded elevations and the ramp at its pixels'
    /// middles, over pixels at least two pixels inside the ramp; and how many were compared.
    func worst(_ reader: BundleReader, z: Int, encoding: TerrainEncoding, size: Int, voidCorner: Bool = false) throws -> (Double, Int, Int)
    {
        var worst = 0.0, compared = 0, voids = 0
        for t in TileRange(bounds: GeoBounds(west: Self.west, south: Self.south, east: Self.west + 0.15, north: Self.south + 0.15), zoom: z)
        {
            guard let image = try fx.tile(reader, t) else { continue }
            #expect(image.width == size)
            let b = t.mercatorBounds, px = (b.maxX - b.minX) / Double(size)
            // Every third pixel (the tests run in debug builds).
            for y in stride(from: 0, to: size, by: 3) {
                for x in stride(from: 0, to: size, by: 3) {
                    let i = (y * size + x) * 4
                    let (lon, lat) = WebMercator.unproject(x: b.minX + (Double(x) + 0.5) * px, y: b.maxY - (Double(y) + 0.5) * px)
                    // Two tile pixels and two DEM pixels: near its edge a sample mixes in voids.
                    let margin = 2 * px / 111_000 * 1.4 + 0.001
                    let inside =
                        lon > Self.west + margin && lon < Self.west + 0.15 - margin && lat > Self.south + margin
                        && lat < Self.south + 0.15 - margin
                    if image.pixels[i + 3] == 0 { voids += 1; continue }
                    #expect(image.pixels[i + 3] == 255)
                    let nearVoid = voidCorner && lon < Self.west + 0.03 + margin && lat < Self.south + 0.03 + margin
                    guard inside, !nearVoid else { continue }
                    let e = encoding.decode(red: image.pixels[i], green: image.pixels[i + 1], blue: image.pixels[i + 2])
                    worst = max(worst, abs(e - Self.elevation(lon: lon, lat: lat)))
                    compared += 1
                }
            }
        }
        return (worst, compared, voids)
    }

    @Test(arguments: [(TerrainEncoding.terrarium, TileFormat.png, 256), (.mapbox, .png, 512), (.terrarium, .webp, 512)])
    func aRampDecodesWithinTheStepAtEveryZoom(_ encoding: TerrainEncoding, _ format: TileFormat, _ size: Int) throws {
        let dem = try ramp()
        var layer = TerrainLayer(sources: [dem])
        layer.encoding = encoding
        var o = fx.options(layer, zooms: 10...14, out: "ramp-\(encoding)-\(format)-\(size).mbtiles", tileSize: size)
        o.format = format
        o.lossless = format == .webp
        let reader = try fx.build(o)
        let meta = try reader.metadataPairs()
        #expect(meta["encoding"] == encoding.metadataValue)
        #expect(meta["format"] == format.rawValue)
        for z in [10, 12, 14] {
            let (worst, compared, _) = try worst(reader, z: z, encoding: encoding, size: size)
            #expect(compared > 1000, "zoom \(z): \(compared) pixels")
            // The step, and a hundredth of a metre for float32. At zoom 10 the tile's pixels are
            // averages of several DEM pixels, gdalwarp's centred on them within a fraction of a
            // DEM pixel (whose rise is 1.5 m eastwards): a quarter of a metre more.
            let resampling = z == 10 ? 0.25 : 0.01
            #expect(worst <= encoding.step + resampling, "zoom \(z) \(encoding): worst \(worst) m")
        }
    }

    @Test func voidsAreTransparentAndFeetAreMetres() throws {
        let metres = try ramp("metres", voids: true)
        // The same ramp in feet, its band's unit named by a VRT (as gdal_translate writes one).
        let feetTif = try ramp("feet-values", unitScale: 0.3048, voids: true)
        let vrt = fx.dir.file("feet.vrt")
        try GDALTools.translate(feetTif, vrt, ["-of", "VRT"])
        var text = try String(contentsOfFile: vrt, encoding: .utf8)
        text = text.replacingOccurrences(of: "<NoDataValue>", with: "<UnitType>ft</UnitType><NoDataValue>")
        try text.write(toFile: vrt, atomically: true, encoding: .utf8)
        for (name, dem) in [("metres", metres), ("feet", vrt)] {
            var layer = TerrainLayer(sources: [dem])
            layer.encoding = .terrarium
            let reader = try fx.build(fx.options(layer, zooms: 14...14, out: "\(name).mbtiles"))
            let (worst, compared, voids) = try worst(reader, z: 14, encoding: .terrarium, size: 256, voidCorner: true)
            #expect(compared > 1000 && worst <= 0.02, "\(name): worst \(worst) m over \(compared) pixels")
            #expect(voids > 1000, "\(name): the void corner is transparent (\(voids) pixels)")
        }
    }

    /// At the DEM's own zoom the tiles are the DEM's bilinear samples: RMSE within 0.5 m of
    /// gdalwarp -r bilinear onto the same tile.
    @Test func coneTilesAreTheDEMsBilinearSamples() throws {
        let dem = try fx.cone()
        var layer = TerrainLayer(sources: [dem])
        layer.encoding = .mapbox
        let reader = try fx.build(fx.options(layer, zooms: 12...12, out: "cone-rgb.mbtiles"))
        let t = WebMercator.tile(lon: -105.515, lat: 39.983, zoom: 12)
        let image = try #require(try fx.tile(reader, t))
        let theirs = try fx.floats(try fx.warped(dem, t, border: 0, resampling: "bilinear"))
        #expect(theirs.count == 256 * 256)
        var sum = 0.0, n = 0, mismatched = 0
        for i in theirs.indices {
            let void = theirs[i] == -9999, ours = image.pixels[i * 4 + 3] == 0
            if void != ours { mismatched += 1; continue }
            if void { continue }
            let e = TerrainEncoding.mapbox.decode(red: image.pixels[i * 4], green: image.pixels[i * 4 + 1], blue: image.pixels[i * 4 + 2])
            sum += (e - theirs[i]) * (e - theirs[i])
            n += 1
        }
        let rmse = (sum / Double(max(n, 1))).squareRoot()
        #expect(n > 30_000 && rmse <= 0.5, "RMSE \(rmse) m over \(n) pixels")
        #expect(mismatched < 300, "\(mismatched) pixels void in one and not the other")
    }
}
