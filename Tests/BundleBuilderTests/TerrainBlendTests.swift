import Foundation
import Raster
import Terrain
import Testing
import TileGeometry
import TileStore
@testable import BundleBuilder
import TrailMapTestSupport

/// A terrain layer's hillshade blended into the imagery of the same bundle (`TerrainLayer.blend`):
/// built from a GeoTIFF and the cone DEM made by GDAL in the test run, each tile's pixel is the
/// imagery's pixel (the same build without terrain) under the shade of the terrain bundle built
/// from the DEM alone at the same zoom, multiplied or drawn over with the opacity; pixels outside
/// the DEM and on its void are the imagery's, unchanged, and zooms outside the layer's range too.
@Suite(.computeThreads) struct TerrainBlendTests {
    let fx = TerrainFixture()
    /// The imagery: wider than the cone DEM (about -105.59…-105.44, 39.93…40.04) on every side.
    static let box = GeoBounds(west: -105.66, south: 39.90, east: -105.38, north: 40.08)
    static let zooms = 11...12

    func imagery() throws -> String {
        let png = try TestSources.write(in: fx.dir, name: "imagery", width: 600, height: 400, bounds: Self.box, color: TestSources.terrain)
        let tif = fx.dir.file("imagery.tif")
        try GDALTools.translate(png, tif, ["-a_srs", "EPSG:4326", "-co", "TILED=YES"])
        return tif
    }

    func options(imagery: String, terrain: TerrainLayer?, out: String) -> BuildOptions {
        var o = BuildOptions(
            sources: [imagery], name: "blend", minZoom: Self.zooms.lowerBound, maxZoom: Self.zooms.upperBound,
            output: fx.dir.file(out))
        o.terrain = terrain
        o.threads = 2
        // Exact pixels: compact rounding may move an untouched pixel by a step when its
        // neighbours change.
        o.rounding = .nearest
        return o
    }

    /// Per tile of `zoom` inside the imagery, the blended tile, the imagery alone and the shade.
    func compare(
        _ blended: BundleReader, _ plain: BundleReader, _ shade: BundleReader, zoom: Int,
        check: (_ out: UInt8, _ colour: UInt8, _ shade: UInt8?) -> Void
    ) throws -> (shaded: Int, untouched: Int) {
        var shaded = 0, untouched = 0
        for t in TileRange(bounds: Self.box, zoom: zoom) {
            let ref = try #require(try fx.tile(plain, t)), out = try #require(try fx.tile(blended, t))
            let s = try fx.tile(shade, t)
            for y in 1..<255 {
                for x in 1..<255 {
                    let i = (y * 256 + x) * 4
                    let covered = s.map { $0.pixels[i + 3] == 255 } ?? false
                    // A pixel on the very edge of the DEM or its void may fall either way between two warps.
                    let edge = [i - 4, i + 4, i - 1024, i + 1024].contains { j in (s.map { $0.pixels[j + 3] == 255 } ?? false) != covered }
                    if edge { continue }
                    for c in 0..<3 { check(out.pixels[i + c], ref.pixels[i + c], covered ? s!.pixels[i] : nil) }
                    #expect(out.pixels[i + 3] == ref.pixels[i + 3])
                    if covered { shaded += 1 } else { untouched += 1 }
                }
            }
        }
        return (shaded, untouched)
    }

    @Test(arguments: [(TerrainBlend.multiply, 0.7), (.over, 0.5)])
    func blendedTilesAreTheImageryUnderTheShade(_ blend: TerrainBlend, _ opacity: Double) throws {
        let dem = try fx.cone(), imagery = try imagery()
        var shadeLayer = TerrainLayer(sources: [dem])
        shadeLayer.hillshade = HillshadeOptions()
        // The standalone hillshade of each zoom built alone, so that each is warped from the DEM as
        // the blend's is (a build of both makes zoom 11 from zoom 12's elevations).
        let shade = try fx.build(fx.options(shadeLayer, zooms: 11...11, out: "shade-\(blend)-\(opacity).mbtiles"))
        let shade12 = try fx.build(fx.options(shadeLayer, zooms: 12...12, out: "shade12-\(blend)-\(opacity).mbtiles"))
        let plain = try fx.build(options(imagery: imagery, terrain: nil, out: "plain-\(blend)-\(opacity).mbtiles"))
        var layer = shadeLayer
        layer.blend = blend
        layer.opacity = opacity
        layer.zooms = 11...11
        let blended = try fx.build(options(imagery: imagery, terrain: layer, out: "blend-\(blend)-\(opacity).mbtiles"))
        var worst = 0, off = 0, compared = 0
        for z in 11...11 {
            let (shaded, untouched) = try compare(blended, plain, shade, zoom: z) { out, colour, s in
                guard let s else {
                    #expect(out == colour, "outside the DEM or on its void the imagery is untouched")
                    return
                }
                let f = Double(s)
                let expected =
                    blend == .multiply ? Double(colour) * (1 - opacity + opacity * f / 255) : Double(colour) * (1 - opacity) + f * opacity
                let d = abs(Double(out) - expected)
                worst = max(worst, Int(d.rounded(.up)))
                compared += 1
                if d > 0.5 + 1e-9 { off += 1 }
            }
            #expect(shaded > 20_000, "zoom \(z): \(shaded) shaded pixels")
            #expect(untouched > 20_000, "zoom \(z): \(untouched) pixels outside the DEM")
        }
        // The blend rounds to the nearest; the shade of a tile warped alone and one cut from a
        // block of tiles differ by a step now and then.
        #expect(Double(off) < Double(compared) * 0.01, "\(off) of \(compared) values off by more than rounding")
        #expect(worst <= 3, "worst difference \(worst)")
        // Zoom 12 is outside the terrain layer's zooms: the imagery as it is, where the DEM is too.
        let (shaded12, _) = try compare(blended, plain, shade12, zoom: 12) { out, colour, _ in
            #expect(out == colour)
        }
        #expect(shaded12 > 20_000)
    }

    /// The void of the cone DEM: every pixel whose neighbours are voids too is the imagery's.
    @Test func voidsAreUntouched() throws {
        let dem = try fx.cone(), imagery = try imagery()
        var layer = TerrainLayer(sources: [dem])
        layer.hillshade = HillshadeOptions()
        layer.blend = .multiply
        var o = options(imagery: imagery, terrain: layer, out: "void.mbtiles"),
            p = options(imagery: imagery, terrain: nil, out: "void-plain.mbtiles")
        (o.minZoom, p.minZoom, o.maxZoom, p.maxZoom) = (13, 13, 13, 13)
        let blended = try fx.build(o), plain = try fx.build(p)
        // The void: columns and rows 40-60 of the 400-pixel, 30 m DEM from the UTM origin
        // (about -105.572…-105.565, 40.021…40.026, gdaltransform).
        var voids = 0, changed = 0
        for t in TileRange(bounds: GeoBounds(west: -105.572, south: 40.021, east: -105.565, north: 40.026), zoom: 13) {
            let warped = try fx.floats(fx.warped(dem, t, border: 0, resampling: "bilinear"))
            let ref = try #require(try fx.tile(plain, t)), out = try #require(try fx.tile(blended, t))
            for y in 1..<255 {
                for x in 1..<255 {
                    let i = y * 256 + x
                    guard [i, i - 1, i + 1, i - 256, i + 256].allSatisfy({ warped[$0] == -9999 }) else { continue }
                    voids += 1
                    if out.pixels[i * 4..<i * 4 + 4] != ref.pixels[i * 4..<i * 4 + 4] { changed += 1 }
                }
            }
        }
        #expect(voids > 200 && changed == 0, "\(voids) void pixels, \(changed) changed")
    }
}
