import Foundation
import Raster
import SourceReaders
import Terrain
import TileStore
import Testing
@testable import BundleBuilder
import TrailMapTestSupport

/// DEMs a terrain build cannot use: each a structured error naming the file, nothing written.
@Suite(.computeThreads) struct TerrainInputErrorTests {
    let fx = TerrainFixture()

    func failure(_ dem: String, out: String) throws -> BuildError? {
        var layer = TerrainLayer(sources: [dem])
        layer.hillshade = HillshadeOptions()
        let o = fx.options(layer, zooms: 10...11, out: out)
        defer { #expect(!FileManager.default.fileExists(atPath: o.output), "\(out): nothing written") }
        do { try fx.build(o) } catch let error as BuildError { return error }
        return nil
    }

    @Test func noCRSNoGeoreferenceAllVoidsAndAnUnknownUnitAreNamed() throws {
        let noCRS = try fx.dem("no-crs", size: 20, cell: 30, x0: 450_000, y0: 4_420_000, srs: nil) { _, _ in 100 }
        let grid = fx.dir.file("no-georef.tif")
        try GDALTools.run("gdal_create", ["-q", "-of", "GTiff", "-outsize", "20", "20", "-ot", "Int16", "-burn", "5", grid])
        let voids = try fx.dem("voids", size: 20, cell: 30, x0: 450_000, y0: 4_420_000, srs: "EPSG:32613") { _, _ in nil }
        let furlongs = fx.dir.file("furlongs.vrt")
        let plain = try fx.dem("plain", size: 20, cell: 30, x0: 450_000, y0: 4_420_000, srs: "EPSG:32613") { _, _ in 100 }
        try GDALTools.translate(plain, furlongs, ["-of", "VRT"])
        let text = try String(contentsOfFile: furlongs, encoding: .utf8)
            .replacingOccurrences(of: "<NoDataValue>", with: "<UnitType>furlong</UnitType><NoDataValue>")
        try text.write(toFile: furlongs, atomically: true, encoding: .utf8)

        let a = try failure(noCRS, out: "a.mbtiles")
        #expect({ if case .source(.noCRS(noCRS))? = a { true } else { false } }(), "\(String(describing: a))")
        let b = try failure(grid, out: "b.mbtiles")
        #expect({ if case .source(.noGeoreference(grid))? = b { true } else { false } }(), "\(String(describing: b))")
        let c = try failure(voids, out: "c.mbtiles")
        #expect({ if case .source(.noElevations(voids))? = c { true } else { false } }(), "\(String(describing: c))")
        let d = try failure(furlongs, out: "d.mbtiles")
        #expect({ if case .source(.unknownVerticalUnit(furlongs, "furlong"))? = d { true } else { false } }(), "\(String(describing: d))")
        #expect(d?.description.contains("furlong") == true && d?.description.contains(furlongs) == true)
    }

    /// A DEM that is voids but for a few pixels has elevations: its range (sampled when no
    /// colour ramp needs it exact) must not call it all voids.
    @Test func aFewElevationsAmongVoidsAreFound() throws {
        let dem = try fx.dem("island", size: 400, cell: 30, x0: 450_000, y0: 4_420_000, srs: "EPSG:32613") { x, y in
            let col = Int((x - 450_000) / 30), row = Int((4_432_000 - y) / 30)
            return (203...204).contains(col) && (301...302).contains(row) ? 1500 : nil
        }
        var layer = TerrainLayer(sources: [dem])
        layer.hillshade = HillshadeOptions()
        let reader = try fx.build(fx.options(layer, zooms: 12...12, out: "island.mbtiles"))
        #expect(try reader.zoomLevels().reduce(0) { $0 + $1.tiles } > 0)
    }

    @Test func aLayerThatMakesNothingOrMixesTilesAndDrawingIsRefused() throws {
        let dem = try fx.dem("ok", size: 20, cell: 30, x0: 450_000, y0: 4_420_000, srs: "EPSG:32613") { _, _ in 100 }
        var nothing = TerrainLayer(sources: [dem])
        #expect(throws: BuildError.self) { try fx.build(fx.options(nothing, zooms: 10...10, out: "n.mbtiles")) }
        nothing.encoding = .terrarium
        nothing.hillshade = HillshadeOptions()
        do { try fx.build(fx.options(nothing, zooms: 10...10, out: "m.mbtiles")) } catch let error as BuildError {
            #expect({ if case .terrain(.tilesAndDrawing) = error { true } else { false } }())
        }
        var lossy = TerrainLayer(sources: [dem])
        lossy.encoding = .mapbox
        var o = fx.options(lossy, zooms: 10...10, out: "l.mbtiles")
        o.format = .webp
        do { try fx.build(o); Issue.record("lossy terrain tiles were built") } catch let error as BuildError {
            #expect({ if case .terrain(.lossyTerrainTiles) = error { true } else { false } }())
        }
    }
}
