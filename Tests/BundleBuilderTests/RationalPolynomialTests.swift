import Foundation
import Raster
import SourceReaders
import Testing
import TileGeometry
import TileStore
@testable import BundleBuilder
import TrailMapTestSupport

/// Satellite scenes georeferenced by rational polynomial coefficients (RPCs) only, as level-1
/// products come: rendered through GDAL's RPC transformer at the scene's mean height and checked
/// against gdalwarp's rendering of the same file.
@Suite(.computeThreads) struct RationalPolynomialTests {
    let fx = RealSourceFixture()
    static let box = GeoBounds(west: -105.8, south: 39.25, east: -105.2, north: 39.75)

    /// 20 coefficients in RPC00B order (1, L, P, H, LP, LH, PH, L², P², H², ...), the others 0.
    static func coefficients(_ terms: [Int: Double]) -> String {
        (0..<20).map { String(terms[$0] ?? 0) }.joined(separator: " ")
    }

    /// A 400 px checkerboard scene with no geotransform and RPCs over `box`: lines run south with
    /// latitude, samples east with longitude, bent by a longitude × latitude term and moved by
    /// height (10 and 15 px between 0 m and the 2,500 m mean height), as a sensor looking askew.
    /// `items` replaces the RPC metadata.
    func scene(_ name: String = "scene", items: [String: String]? = nil) throws -> String {
        let tif = try fx.geographic(name + "-pixels", box: Self.box, size: 400)
        let rpc =
            items ?? [
                "LINE_OFF": "200", "SAMP_OFF": "200", "LINE_SCALE": "200", "SAMP_SCALE": "200",
                "LAT_OFF": "39.5", "LONG_OFF": "-105.5", "LAT_SCALE": "0.25", "LONG_SCALE": "0.3",
                "HEIGHT_OFF": "2500", "HEIGHT_SCALE": "1000",
                "LINE_NUM_COEFF": Self.coefficients([2: -1, 3: 0.02, 4: 0.01]),
                "LINE_DEN_COEFF": Self.coefficients([0: 1]),
                "SAMP_NUM_COEFF": Self.coefficients([1: 1, 3: 0.03]),
                "SAMP_DEN_COEFF": Self.coefficients([0: 1])
            ]
        let metadata = rpc.sorted { $0.key < $1.key }.map { "    <MDI key=\"\($0.key)\">\($0.value)</MDI>" }.joined(separator: "\n")
        let bands = ["Red", "Green", "Blue"].enumerated().map { i, colour in
            """
              <VRTRasterBand dataType="Byte" band="\(i + 1)">
                <ColorInterp>\(colour)</ColorInterp>
                <SimpleSource><SourceFilename relativeToVRT="0">\(tif)</SourceFilename><SourceBand>\(i + 1)</SourceBand></SimpleSource>
              </VRTRasterBand>
            """
        }.joined(separator: "\n")
        let vrt = fx.dir.file(name + ".vrt")
        try """
        <VRTDataset rasterXSize="400" rasterYSize="400">
          <Metadata domain="RPC">
        \(metadata)
          </Metadata>
        \(bands)
        </VRTDataset>
        """.write(toFile: vrt, atomically: true, encoding: .utf8)
        return vrt
    }

    @Test func geolocatesLikeGDALWarpAtTheScenesHeight() throws {
        let vrt = try scene()
        let d = try RasterDataset(path: vrt).describe(options: ReadOptions())
        #expect(d.georeferencing.isRationalPolynomials)
        #expect(d.crs.kind == .epsg4326, "RPCs give WGS 84 longitudes and latitudes")

        let (lon, lat) = Self.box.center
        let tile = WebMercator.tile(lon: lon, lat: lat, zoom: 10)
        let ours = try #require(try fx.tile(fx.build(fx.options([vrt], min: 10, max: 10, out: "near.mbtiles", resampling: .nearest)), tile))
        let atMean = try fx.reference(tile, vrt, resampling: "near", extra: ["-rpc", "-to", "RPC_HEIGHT=2500"])
        let atZero = try fx.reference(tile, vrt, resampling: "near", extra: ["-rpc"])
        let (fraction, compared) = RealSourceFixture.mismatch(ours, atMean)
        #expect(compared > 20_000, "the tile and the reference overlap")
        // Cells of 16 source pixels, ~13 tile pixels here: a shift of s px differs on ~2s/13 of them.
        #expect(fraction * 13 / 2 < 0.5, "mean offset \(fraction * 13 / 2) px against gdalwarp -rpc at the mean height")
        let (elsewhere, _) = RealSourceFixture.mismatch(ours, atZero)
        #expect(elsewhere > 10 * max(fraction, 0.01), "the height moves the scene: \(elsewhere) of pixels differ from gdalwarp at 0 m")

        let bundle = try fx.build(fx.options([vrt], min: 7, max: 11, out: "avg.mbtiles"))
        let meta = try bundle.metadataPairs()
        let bounds = try #require(meta["bounds"]?.split(separator: ",").compactMap { Double($0) })
        // The scene covers roughly box (the height and bend terms move its edges by a few pixels).
        #expect(abs(bounds[0] - Self.box.west) < 0.05 && abs(bounds[2] - Self.box.east) < 0.05, "\(bounds)")
        #expect(abs(bounds[1] - Self.box.south) < 0.05 && abs(bounds[3] - Self.box.north) < 0.05, "\(bounds)")
        for (t, image) in try fx.allTiles(bundle, zooms: 7...11, bounds: Self.box) {
            #expect(RealSourceFixture.darkPixels(image) == 0, "tile \(t) paints outside the scene as colour")
        }
    }

    /// RPCs give longitudes past 180° across the antimeridian, which the transformer does not
    /// wrap: such a scene is refused, saying so, not built around the world.
    @Test func aSceneAcrossTheAntimeridianIsRefused() throws {
        var items = [
            "LINE_OFF": "200", "SAMP_OFF": "200", "LINE_SCALE": "200", "SAMP_SCALE": "200",
            "LAT_OFF": "-16.5", "LONG_OFF": "180", "LAT_SCALE": "0.25", "LONG_SCALE": "0.3",
            "HEIGHT_OFF": "0", "HEIGHT_SCALE": "1000"
        ]
        items["LINE_NUM_COEFF"] = Self.coefficients([2: -1])
        items["SAMP_NUM_COEFF"] = Self.coefficients([1: 1])
        items["LINE_DEN_COEFF"] = Self.coefficients([0: 1])
        items["SAMP_DEN_COEFF"] = Self.coefficients([0: 1])
        let vrt = try scene("fiji", items: items)
        var message = ""
        #expect { try BundleBuilder(options: fx.options([vrt], min: 6, max: 8, out: "fiji.mbtiles")).build() } throws: { error in
            message = "\(error)"
            return true
        }
        #expect(message.contains(vrt) && message.contains("crosses the antimeridian"), "\(message)")
    }

    @Test func incompleteRPCsAreRefusedNamingTheFile() throws {
        let vrt = try scene("partial", items: ["LINE_OFF": "200", "SAMP_OFF": "200", "LAT_OFF": "39.5"])
        var message = ""
        #expect { try BundleBuilder(options: fx.options([vrt], min: 8, max: 9, out: "bad.mbtiles")).build() } throws: { error in
            message = "\(error)"
            return true
        }
        #expect(message.contains(vrt) && message.contains("rational polynomial coefficients (RPC) cannot georeference it"), "\(message)")
        #expect(!fx.dir.contents.contains { $0 == "bad.mbtiles" })
    }
}
