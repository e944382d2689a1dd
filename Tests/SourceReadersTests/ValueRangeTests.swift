import Foundation
import SourceReaders
import Testing
import TrailMapTestSupport

/// Bands whose values need more than GDAL's defaults: signed bytes, ranges wider than a Double,
/// bands with nothing to draw; and options that do not apply to a source.
extension RasterDatasetTests {
    /// An ENVI raster of one band of `type` (4 Float32, 5 Float64) holding `values` in one row.
    func envi(_ name: String, type: Int, _ values: [Double]) throws -> String {
        var data = Data()
        for v in values {
            if type == 5 {
                withUnsafeBytes(of: v.bitPattern.littleEndian) { data.append(contentsOf: $0) }
            } else {
                withUnsafeBytes(of: Float(v).bitPattern.littleEndian) { data.append(contentsOf: $0) }
            }
        }
        return try envi(name, type: type, samples: values.count, lines: 1, pixel: (0.125, 0.125), data: data)
    }

    /// An ENVI raster of one band: `data` holds `samples` × `lines` little-endian values of ENVI
    /// data `type` (2 Int16, 4 Float32, 5 Float64), in degrees from (-106°, 40°) by `pixel`.
    func envi(_ name: String, type: Int, samples: Int, lines: Int, pixel: (x: Double, y: Double), data: Data) throws -> String {
        let raw = dir.file(name + ".dat")
        try data.write(to: URL(fileURLWithPath: raw))
        try """
        ENVI
        samples = \(samples)
        lines = \(lines)
        bands = 1
        header offset = 0
        file type = ENVI Standard
        data type = \(type)
        interleave = bsq
        byte order = 0
        map info = {Geographic Lat/Lon, 1, 1, -106, 40, \(pixel.x), \(pixel.y), WGS-84}
        """.write(toFile: dir.file(name + ".hdr"), atomically: true, encoding: .utf8)
        return raw
    }

    /// GDAL 3.6 types a GeoTIFF's signed 8-bit samples as Byte with `PIXELTYPE=SIGNEDBYTE` and
    /// reads them as 0...255: they are taken back to -128...127 and scaled from their range.
    @Test func signedBytesAreSigned() throws {
        // Columns 0-7 hold 0...112, columns 8-15 the bytes 128...240, i.e. -128...-16.
        let signed = try make("signed", ["-b", "1", "-co", "PIXELTYPE=SIGNEDBYTE"]) { c, _ in (UInt8(c * 16), 0, 0, 255) }
        let (d, px) = try read(signed)
        #expect(d.signedBytes && d.scale?.min == -128 && d.scale?.max == 112, "\(String(describing: d.scale))")
        #expect(px[8 * 4] == 0 && px[7 * 4] == 255, "-128 is the darkest, 112 the brightest: \(Array(px[0..<64]))")
        #expect(px[0] == 136 && px[15 * 4] == 119, "0 and -16 lie between: \(px[0]), \(px[15 * 4])")
        // --src-nodata is compared with the signed value.
        let (_, masked) = try read(signed, options: ReadOptions(nodata: [-128]))
        #expect(masked[8 * 4 + 3] == 0 && masked[9 * 4 + 3] == 255 && masked[3] == 255)
        let plain = try make("unsigned", ["-b", "1"]) { c, _ in (UInt8(c * 16), 0, 0, 255) }
        #expect(try !read(plain).0.signedBytes && read(plain).0.scale == nil)
    }

    /// The default range is the band's exact minimum and maximum. An Int16 band of 1500 but for
    /// one pixel of 1000: GDAL's approximate statistics (a sample) and a decimated read both
    /// miss that pixel, and the band came out constant (1500, drawn black everywhere).
    @Test func theRangeHoldsEveryPixel() throws {
        let side = 2500
        var data = Data(count: side * side * 2)
        data.withUnsafeMutableBytes { raw in
            let px = raw.bindMemory(to: Int16.self)
            px.initialize(repeating: Int16(1500).littleEndian)
            px[1777 * side + 1235] = Int16(1000).littleEndian
        }
        let raw = try envi("outlier", type: 2, samples: side, lines: side, pixel: (0.0004, 0.0004), data: data)
        let tif = dir.file("outlier.tif")
        try GDALTools.translate(raw, tif, ["-co", "TILED=YES", "-co", "COMPRESS=DEFLATE"])
        let d = try RasterDataset(path: tif).describe(options: ReadOptions())
        #expect(d.scale?.min == 1000 && d.scale?.max == 1500, "\(String(describing: d.scale))")
        // With --src-nodata the range is TrailMap's own scan, which must see it too.
        let masked = try RasterDataset(path: tif).describe(options: ReadOptions(nodata: [0]))
        #expect(masked.scale?.min == 1000 && masked.scale?.max == 1500, "\(String(describing: masked.scale))")
    }

    /// A Float64 band from -1e308 to 1e308: the range's width overflows a Double, and before
    /// it was halved every pixel drew black.
    @Test func rangesWiderThanADouble() throws {
        let wide = try envi("wide", type: 5, [-1e308, 0, 5e307, 1e308])
        let (d, px) = try read(wide)
        #expect(d.scale?.min == -1e308 && d.scale?.max == 1e308)
        #expect([px[0], px[4], px[8], px[12]] == [0, 128, 191, 255], "\([px[0], px[4], px[8], px[12]])")
        #expect(px[3] == 255 && px[15] == 255)
    }

    /// A band with nothing to draw (all NaN) is read as transparent and marked, so that a
    /// series leaves it out of its joint range (GDAL's statistics fail on it).
    @Test func aBandOfOnlyNaNDrawsNothing() throws {
        let nan = try envi("nan", type: 4, [.nan, .nan, .nan, .nan])
        let (d, px) = try read(nan)
        #expect(d.nothingToDraw)
        #expect([px[3], px[7], px[11], px[15]] == [0, 0, 0, 0], "\(px)")
        let (some, _) = try read(try envi("some", type: 4, [.nan, 1, 2, .nan]))
        #expect(!some.nothingToDraw && some.scale?.min == 1 && some.scale?.max == 2)
    }

    /// A source whose values are read as they are (a DEM) is described without a range to scale:
    /// the rest of the description is that of a drawing, and a given range still applies.
    @Test func aDescriptionNotForDrawingHasNoRange() throws {
        let path = try envi("values", type: 4, [-5, 1, 2, 4000])
        var options = ReadOptions()
        options.forDrawing = false
        let values = try RasterDataset(path: path).describe(options: options)
        let drawn = try RasterDataset(path: path).describe(options: ReadOptions())
        #expect(values.scale == nil && drawn.scale?.min == -5 && drawn.scale?.max == 4000)
        #expect(values.width == drawn.width && values.height == drawn.height && values.dataType == drawn.dataType)
        options.scale = (0, 100)
        #expect(try RasterDataset(path: path).describe(options: options).scale?.max == 100)
    }

    /// `--src-nodata` on a source with an alpha band: both make pixels transparent.
    @Test func givenNodataAppliesBesideAnAlphaBand() throws {
        let rgba = try make("rgba-nodata", ["-expand", "rgba"]) { c, _ in
            c < 4 ? (10, 20, 30, 255) : c < 12 ? (200, 100, 50, 255) : (200, 100, 50, 0)
        }
        let (d, px) = try read(rgba, options: ReadOptions(nodata: [10, 20, 30]))
        #expect(d.transparency == .alphaBandAndNodata([10, 20, 30]))
        #expect(px[3] == 0 && px[3 * 4 + 3] == 0, "the nodata colour is transparent")
        #expect(px[4 * 4 + 3] == 255 && px[11 * 4 + 3] == 255 && px[12 * 4 + 3] == 0, "the alpha band still counts")
        let (alone, apx) = try read(rgba)
        #expect(alone.transparency == .alphaBand && apx[3] == 255)
    }

    /// A scale range on 8-bit bands and palettes does nothing, and the source says so.
    @Test func scaleOnEightBitBandsIsReported() throws {
        let eight = try make("eight-scaled", ["-b", "1"]) { c, _ in (UInt8(c * 16), 0, 0, 255) }
        let (d, px) = try read(eight, options: ReadOptions(scale: (0, 100)))
        #expect(d.scale == nil && px[15 * 4] == 240)
        #expect(d.unusedOptions == [.scaleOn8Bit(palette: false)])
        #expect(d.unusedOptions[0].description.contains("not applied: its bands are 8-bit"))
        let wide = try make("wide-scaled", ["-b", "1", "-ot", "UInt16"]) { c, _ in (UInt8(c * 16), 0, 0, 255) }
        #expect(try read(wide, options: ReadOptions(scale: (0, 100))).0.unusedOptions.isEmpty)
        #expect(try read(eight).0.unusedOptions.isEmpty)
    }
}
