import Foundation
import Raster
import SourceReaders
import Testing
import TileGeometry
import TileStore
@testable import BundleBuilder
import TrailMapTestSupport

/// Band layouts, overviews, VRTs, rotated geotransforms and many files.
@Suite(.computeThreads) struct RealSourceFormatTests {
    let fx = RealSourceFixture()
    static let box = RealSourceTests.box

    func tiles(_ reader: BundleReader, zooms: ClosedRange<Int>) throws -> [TileID: RGBAImage] {
        Dictionary(uniqueKeysWithValues: try fx.allTiles(reader, zooms: zooms, bounds: Self.box).map { ($0.0, $0.1) })
    }

    /// A UInt16 copy of a sheet (values × 257) builds like the 8-bit sheet, with the band's own
    /// range and with --scale.
    @Test func sixteenBitBandsAreScaled() throws {
        let src = try fx.geographic("terrain", box: Self.box, size: 256, color: TestSources.terrain)
        let utm = try fx.projected(src, name: "utm8", crs: "EPSG:32613", pixel: 400)
        let wide = fx.dir.file("utm16.tif")
        try GDALTools.translate(utm, wide, ["-ot", "UInt16", "-scale", "0", "255", "0", "65535"])
        let eight = try tiles(try fx.build(fx.options([utm], min: 7, max: 9, out: "8.mbtiles")), zooms: 7...9)
        var scaled = fx.options([wide], min: 7, max: 9, out: "16.mbtiles")
        scaled.read.scale = (0, 65535)
        let sixteen = try tiles(try fx.build(scaled), zooms: 7...9)
        #expect(Set(eight.keys) == Set(sixteen.keys) && !eight.isEmpty)
        for (t, image) in eight { #expect(psnr(image, sixteen[t]!) > 45, "tile \(t)") }
        // Without --scale: the bands' min/max stretch, so colours differ but every tile is there.
        let stretched = try tiles(try fx.build(fx.options([wide], min: 7, max: 9, out: "16s.mbtiles")), zooms: 7...9)
        #expect(Set(stretched.keys) == Set(eight.keys))
    }

    /// A floating-point band holding ±infinity in a few pixels (GDAL's own minimum and maximum
    /// are then infinite) is mapped from its finite values' range: the same tiles as the band
    /// with those pixels at the finite minimum and maximum. It was refused as "no valid values".
    /// Both have a corner of nodata pixels, declared as -3.40282e+38 (not exactly the float the
    /// pixels hold): they stay out of the range.
    @Test func infiniteValuesDoNotHideTheFiniteRange() throws {
        func floats(_ name: String, infinite: Bool) throws -> String {
            let side = 64
            var values = [Float]()
            for r in 0..<side { for c in 0..<side { values.append(r < 8 && c < 8 ? -.greatestFiniteMagnitude : Float(c + r) * 0.75 + 10) } }
            // The finite range outside the nodata corner: 16 ... 104.5.
            values[5 * side + 50] = infinite ? .infinity : 104.5
            values[40 * side + 20] = infinite ? -.infinity : 16
            let bil = fx.dir.file(name + ".bil")
            try values.withUnsafeBytes { Data($0) }.write(to: URL(fileURLWithPath: bil))
            let hdr =
                "BYTEORDER I\nLAYOUT BIL\nNROWS \(side)\nNCOLS \(side)\nNBANDS 1\nNBITS 32\nPIXELTYPE FLOAT\n"
                + "ULXMAP -105.9921875\nULYMAP 39.9921875\nXDIM 0.015625\nYDIM 0.015625\nNODATA -3.40282e+38\n"
            try hdr.write(toFile: fx.dir.file(name + ".hdr"), atomically: true, encoding: .utf8)
            let tif = fx.dir.file(name + ".tif")
            try GDALTools.translate(bil, tif, ["-a_srs", "EPSG:4326"])
            return tif
        }
        let withInfinity = try floats("inf", infinite: true), finite = try floats("finite", infinite: false)
        let a = try tiles(try fx.build(fx.options([withInfinity], min: 7, max: 9, out: "inf.mbtiles")), zooms: 7...9)
        let b = try tiles(try fx.build(fx.options([finite], min: 7, max: 9, out: "finite.mbtiles")), zooms: 7...9)
        #expect(!a.isEmpty && Set(a.keys) == Set(b.keys))
        for (t, image) in b { #expect(a[t] == image, "tile \(t)") }
        // The nodata corner is transparent; the ramp beside it is not.
        func alpha(lon: Double, lat: Double) -> UInt8? {
            let t = WebMercator.tile(lon: lon, lat: lat, zoom: 9), m = t.mercatorBounds, p = WebMercator.project(lon: lon, lat: lat)
            let x = Int((p.x - m.minX) / (m.maxX - m.minX) * 256), y = Int((m.maxY - p.y) / (m.maxY - m.minY) * 256)
            return b[t].map { $0.pixels[(y * 256 + x) * 4 + 3] }
        }
        #expect(alpha(lon: -105.95, lat: 39.95) == 0 && alpha(lon: -105.5, lat: 39.5) == 255)
    }

    /// A paletted map (line art in a few colours) is drawn by point samples under `average`
    /// (`Supersampling`): the same map as its RGB copy, drawn with the exact area mean, in far
    /// fewer distinct colours and fewer bytes. Through PROJ (EPSG:4269) and in closed form (EPSG:4326).
    @Test(arguments: ["EPSG:4269", "EPSG:4326"])
    func palettedMapsAreDrawnByPointSamples(crs: String) throws {
        // Contour-like lines one or two pixels wide in four colours on white.
        let png = try TestSources.write(in: fx.dir, name: "lines", width: 400, height: 400, bounds: Self.box) { c, r in
            let d = (c * 3 + r * 5 + (c * r) / 97) % 23
            switch d {
            case 0: return (140, 100, 50, 255)
            case 1: return (c % 40 < 20 ? 140 : 90, 100, 50, 255)
            case 11: return (40, 90, 200, 255)
            default: return (r % 60 < 30 ? 255 : 205, 240, 230, 255)
            }
        }
        let paletted = fx.dir.file("lines-pal.tif"), rgb = fx.dir.file("lines-rgb.tif")
        try GDALTools.translate(png, paletted, ["-a_srs", crs])
        try GDALTools.translate(png, rgb, ["-a_srs", crs, "-expand", "rgb"])
        let info = try SourceLoader.inspect(paletted, options: ReadOptions())
        #expect(info.isPaletted)
        #expect(try !SourceLoader.inspect(rgb, options: ReadOptions()).isPaletted)
        let a = try fx.build(fx.options([paletted], min: 8, max: 8, out: "pal.mbtiles"))
        let b = try fx.build(fx.options([rgb], min: 8, max: 8, out: "rgb.mbtiles"))
        var colours = (a: 0, b: 0), bytes = (a: 0, b: 0), compared = 0
        var keys = [TileID]()
        try a.forEachTileKey { t, _, _ in keys.append(t) }
        for t in keys {
            let (x, y) = (try #require(try fx.tile(a, t)), try #require(try fx.tile(b, t)))
            #expect(psnr(x, y) > 24, "tile \(t): \(psnr(x, y)) dB from the area mean")
            colours.a += Set(stride(from: 0, to: x.pixels.count, by: 4).map { Array(x.pixels[$0..<$0 + 4]) }).count
            colours.b += Set(stride(from: 0, to: y.pixels.count, by: 4).map { Array(y.pixels[$0..<$0 + 4]) }).count
            bytes.a += try a.tile(t)!.count
            bytes.b += try b.tile(t)!.count
            compared += 1
        }
        #expect(compared > 0)
        #expect(colours.a * 3 < colours.b, "distinct colours: point samples \(colours.a), area mean \(colours.b)")
        #expect(bytes.a * 10 < bytes.b * 8, "bytes: point samples \(bytes.a), area mean \(bytes.b)")
    }

    /// A raster of a container (a GeoPackage of two tables) given by its subdataset name builds
    /// the tiles of that raster alone; a relative name in a list is resolved against the list's
    /// folder, and its stamp is its container file's.
    @Test func subdatasetNamesAreSources() throws {
        let a = try fx.geographic("a", box: Self.box, size: 200, color: TestSources.terrain)
        let b = try fx.geographic("b", box: GeoBounds(west: -105.5, south: 39.5, east: -104.5, north: 40.5), size: 200)
        let gpkg = fx.dir.file("two.gpkg")
        try GDALTools.translate(a, gpkg, ["-of", "GPKG", "-co", "RASTER_TABLE=a", "-co", "TILE_FORMAT=PNG"])
        try GDALTools.translate(b, gpkg, ["-of", "GPKG", "-co", "RASTER_TABLE=b", "-co", "TILE_FORMAT=PNG", "-co", "APPEND_SUBDATASET=YES"])
        let name = "GPKG:\(gpkg):b"
        #expect(try SourceList.expand([name]) == [name])
        #expect(SourceFileStamp(path: name) == SourceFileStamp(path: gpkg) && SourceFileStamp(path: name).size > 0)
        #expect(GDALFiles.resolve("GPKG:two.gpkg:b", relativeTo: fx.dir.path) == name)
        // In a zip, and with an @ in the container's path (not a zoom range).
        try GDALTools.run("zip", ["-q", "-j", fx.dir.file("maps.zip"), gpkg])
        let zipped = "GPKG:/vsizip/\(fx.dir.file("maps.zip"))/two.gpkg:b"
        #expect(GDALFiles.subdataset(zipped)?.file == "/vsizip/\(fx.dir.file("maps.zip"))/two.gpkg")
        #expect(try SourceList.zoomSuffix("GPKG:/maps/v@2/a.gpkg:t") == ("GPKG:/maps/v@2/a.gpkg:t", nil))
        #expect(try SourceList.zoomSuffix("\(name)@8-9").zooms == 8...9)
        let viaName = try tiles(try fx.build(fx.options([name], min: 7, max: 9, out: "sub.mbtiles")), zooms: 7...9)
        let direct = try tiles(try fx.build(fx.options([b], min: 7, max: 9, out: "b.mbtiles")), zooms: 7...9)
        #expect(!direct.isEmpty && Set(viaName.keys) == Set(direct.keys))
        for (t, image) in direct { #expect(psnr(image, viaName[t]!) > 45, "tile \(t)") }
    }

    /// A rotated geotransform (a VRT rotating an EPSG:4326 raster by 10°) renders as gdalwarp does.
    @Test func rotatedGeotransformsWork() throws {
        let src = try fx.geographic("plain", box: Self.box, size: 256, color: TestSources.terrain)
        let vrt = fx.dir.file("rotated.vrt")
        try GDALTools.translate(src, vrt, ["-of", "VRT"])
        let a = 1.0 / 256, theta = 10.0 * .pi / 180
        let gt = "-106, \(a * cos(theta)), \(a * sin(theta)), 40, \(a * sin(theta)), \(-a * cos(theta))"
        var text = try String(contentsOfFile: vrt, encoding: .utf8)
        let range = try #require(text.range(of: "<GeoTransform>[^<]*</GeoTransform>", options: .regularExpression))
        text.replaceSubrange(range, with: "<GeoTransform>\(gt)</GeoTransform>")
        try text.write(toFile: vrt, atomically: true, encoding: .utf8)
        let reader = try fx.build(fx.options([vrt], min: 8, max: 8, out: "rot.mbtiles", resampling: .bilinear))
        let t = WebMercator.tile(lon: -105.5, lat: 39.5, zoom: 8)
        let ours = try #require(try fx.tile(reader, t))
        let theirs = try fx.reference(t, vrt, resampling: "bilinear")
        #expect(RealSourceFixture.opaquePSNR(ours, theirs) >= 35)
        #expect(RealSourceFixture.mismatch(ours, theirs).compared > 10_000)
    }

    /// The top zoom reads the file's overviews where it is coarser than the source: an overview
    /// file of another colour shows at coarse zooms, full resolution at the native one.
    @Test func coarseZoomsReadTheSourcesOverviews() throws {
        let red = try fx.geographic("red", box: Self.box, size: 1024) { _, _ in (220, 40, 40, 255) }
        let blue = try fx.geographic("blue", box: Self.box, size: 1024) { _, _ in (40, 40, 220, 255) }
        try GDALTools.run("gdaladdo", ["-q", "-ro", "-r", "average", blue, "2", "4", "8", "16"])
        try FileManager.default.copyItem(atPath: blue + ".ovr", toPath: red + ".ovr")
        // 1024 px over 1° ~ zoom 10 at this latitude; zoom 7 tiles span ~8 source pixels a pixel.
        let coarse = try fx.build(fx.options([red], min: 7, max: 7, out: "coarse.mbtiles"))
        let t7 = WebMercator.tile(lon: -105.5, lat: 39.5, zoom: 7)
        let image = try #require(try fx.tile(coarse, t7))
        let centre = (128 * 256 + 128) * 4
        let opaque = stride(from: 0, to: image.pixels.count, by: 4).first { image.pixels[$0 + 3] == 255 } ?? centre
        #expect(Array(image.pixels[opaque..<(opaque + 3)]) == [40, 40, 220], "zoom 7 comes from the overview")
        let native = try fx.build(fx.options([red], min: 10, max: 10, out: "native.mbtiles"))
        let t10 = WebMercator.tile(lon: -105.5, lat: 39.5, zoom: 10)
        let full = try #require(try fx.tile(native, t10))
        #expect(Array(full.pixels[centre..<(centre + 3)]) == [220, 40, 40], "zoom 10 reads full resolution")
    }

    /// A COG (internal overviews) and a VRT of sheets give the tiles their plain sources give.
    @Test func cogAndVRTMatchTheirSources() throws {
        let src = try fx.geographic("terrain", box: Self.box, size: 512, color: TestSources.terrain)
        let utm = try fx.projected(src, name: "utm", crs: "EPSG:32613", pixel: 200)
        let cog = fx.dir.file("utm-cog.tif")
        try GDALTools.translate(utm, cog, ["-of", "COG", "-co", "COMPRESS=DEFLATE"])
        #expect(try GDALTools.run("gdalinfo", [cog]).contains("Overviews"))
        let plain = try tiles(try fx.build(fx.options([utm], min: 6, max: 9, out: "plain.mbtiles")), zooms: 6...9)
        let fromCOG = try tiles(try fx.build(fx.options([cog], min: 6, max: 9, out: "cog.mbtiles")), zooms: 6...9)
        #expect(Set(plain.keys) == Set(fromCOG.keys) && plain.count > 5)
        for (t, image) in plain { #expect(psnr(image, fromCOG[t]!) > 40, "COG tile \(t)") }

        let west = try fx.projected(
            try fx.geographic(
                "w", box: GeoBounds(west: -106, south: 39, east: -105.5, north: 40), size: 200,
                color: TestSources.terrain), name: "w-utm", crs: "EPSG:32613", pixel: 250)
        let east = try fx.projected(
            try fx.geographic(
                "e", box: GeoBounds(west: -105.5, south: 39, east: -105, north: 40), size: 200,
                color: TestSources.terrain), name: "e-utm", crs: "EPSG:32613", pixel: 250)
        let vrt = fx.dir.file("sheets.vrt")
        try GDALTools.run("gdalbuildvrt", ["-q", "-srcnodata", "0", "-vrtnodata", "0", vrt, west, east])
        let mosaic = try tiles(try fx.build(fx.options([west, east], min: 7, max: 9, out: "m.mbtiles")), zooms: 7...9)
        let viaVRT = try tiles(try fx.build(fx.options([vrt], min: 7, max: 9, out: "v.mbtiles")), zooms: 7...9)
        #expect(Set(mosaic.keys) == Set(viaVRT.keys))
        for (t, image) in mosaic { #expect(RealSourceFixture.opaquePSNR(image, viaVRT[t]!) > 35, "VRT tile \(t)") }
    }

    /// Six sheets given as a folder (beside a vector GeoPackage, which is not taken), built with
    /// two open files a thread at most and with the default: the same tiles (sources opened
    /// again after being closed read the same pixels).
    @Test func manySheetsFromAFolderWithFewFilesOpen() throws {
        let sheets = fx.dir.file("sheets")
        try FileManager.default.createDirectory(atPath: sheets, withIntermediateDirectories: true)
        for k in 0..<6 {
            let w = -106 + Double(k % 3) / 3, s = 39 + Double(k / 3) / 2
            let src = try fx.geographic(
                "s\(k)", box: GeoBounds(west: w, south: s, east: w + 1.0 / 3, north: s + 0.5), size: 96,
                color: TestSources.terrain)
            _ = try fx.projected(
                src, name: "sheets/sheet\(k)", crs: "EPSG:32613", pixel: 300,
                creation: ["-co", "TILED=YES", "-co", "BLOCKXSIZE=64", "-co", "BLOCKYSIZE=64"])
        }
        try Data("not a raster".utf8).write(to: URL(fileURLWithPath: fx.dir.file("sheets/trails.gpkg")))
        #expect(try SourceList.expand([sheets]).count == 6)
        var few = fx.options([sheets], min: 6, max: 10, out: "few.mbtiles")
        few.maxOpenSourcesPerThread = 2
        let a = try tiles(try fx.build(few), zooms: 6...10)
        let b = try tiles(try fx.build(fx.options([sheets], min: 6, max: 10, out: "all.mbtiles")), zooms: 6...10)
        #expect(a.count > 20 && a == b)
    }

    /// Sources partly beyond the Mercator latitudes are clipped, not refused.
    @Test func sourcesPartlyOutsideMercatorAreClipped() throws {
        let src = try fx.geographic(
            "arctic", box: GeoBounds(west: 10, south: 80, east: 20, north: 88), size: 64,
            color: TestSources.terrain)
        let report = try BundleBuilder(options: fx.options([src], min: 2, max: 4, out: "arctic.mbtiles")).build()
        #expect(report.tilesStored > 0)
        var problems = [String]()
        let meta = try BundleReader(path: fx.dir.file("arctic.mbtiles")).metadata(problems: &problems)
        #expect(meta.bounds.north <= 85.06 && meta.bounds.south == 80)
    }

    /// A polar stereographic raster around the South Pole: its footprint reaches the pole from
    /// the inside (the outline alone stops near 60° S), so it is clipped at the Mercator limit.
    @Test func polarStereographicReachesTheMercatorLimit() throws {
        let src = try fx.geographic(
            "antarctic", box: GeoBounds(west: -180, south: -90, east: 180, north: -60), size: 128,
            color: TestSources.terrain)
        let polar = try fx.projected(src, name: "polar", crs: "EPSG:3031", pixel: 50_000)
        let report = try BundleBuilder(options: fx.options([polar], min: 1, max: 3, out: "polar.mbtiles")).build()
        #expect(report.tilesStored > 0)
        let reader = try BundleReader(path: fx.dir.file("polar.mbtiles"))
        var problems = [String]()
        let meta = try reader.metadata(problems: &problems)
        #expect(meta.bounds.south < -85, "\(meta.bounds)")
        #expect(try fx.tile(reader, TileID(z: 3, x: 4, y: 7)!) != nil, "the southernmost row of tiles holds data")
    }

    /// JPEG 2000, GeoPDF and JPEG + world file sources, made by GDAL from one GeoTIFF, give its tiles.
    @Test func jpeg2000GeoPDFAndJPEGWithWorldFile() throws {
        let src = try fx.geographic("terrain", box: Self.box, size: 256, color: TestSources.terrain)
        let utm = try fx.projected(src, name: "utm", crs: "EPSG:32613", pixel: 400, collar: .alpha)
        let reference = try tiles(try fx.build(fx.options([utm], min: 6, max: 8, out: "tif.mbtiles")), zooms: 6...8)
        let jp2 = fx.dir.file("utm.jp2"), pdf = fx.dir.file("utm.pdf"), jpg = fx.dir.file("geo.jpg")
        try GDALTools.translate(utm, jp2, ["-of", "JP2OpenJPEG", "-co", "QUALITY=100", "-co", "REVERSIBLE=YES"])
        try GDALTools.translate(utm, pdf, ["-of", "PDF"])
        try GDALTools.translate(src, jpg, ["-of", "JPEG", "-co", "WORLDFILE=YES", "-co", "QUALITY=95"])
        let geoReference = try tiles(try fx.build(fx.options([src], min: 6, max: 8, out: "geo.mbtiles")), zooms: 6...8)
        for (path, expected, minimum) in [(jp2, reference, 40.0), (pdf, reference, 25), (jpg, geoReference, 30)] {
            let name = URL(fileURLWithPath: path).lastPathComponent
            let built = try tiles(try fx.build(fx.options([path], min: 6, max: 8, out: name + ".mbtiles")), zooms: 6...8)
            #expect(Set(built.keys) == Set(expected.keys), "\(name)")
            for (t, image) in expected {
                guard let other = built[t] else { continue }
                #expect(RealSourceFixture.opaquePSNR(image, other) > minimum, "\(name) tile \(t)")
            }
        }
    }
}
