import Foundation
import SourceReaders
import Testing
import TileGeometry
import TrailMapTestSupport

@Suite(.computeThreads) struct SpatialReferenceTests {
    @Test func parsesEPSGCodesWKTAndPROJStrings() throws {
        #expect(try SpatialReference(userInput: "EPSG:4326").kind == .epsg4326)
        #expect(try SpatialReference(userInput: "4326").kind == .epsg4326)
        #expect(try SpatialReference(userInput: "EPSG:3857").kind == .epsg3857)
        #expect(
            try SpatialReference(
                userInput: "+proj=merc +a=6378137 +b=6378137 +lon_0=0 +x_0=0 +y_0=0 +k=1 +units=m +nadgrids=@null +no_defs"
            ).kind == .epsg3857)
        let utm = try SpatialReference(userInput: "EPSG:32613")
        #expect(utm.kind == nil && utm.name.contains("UTM zone 13N"))
        let again = try SpatialReference(wkt: utm.wkt)
        #expect(again == utm)
        #expect(try SpatialReference(userInput: "+proj=utm +zone=13 +datum=WGS84").kind == nil)
    }

    @Test func refusesFilesURLsAndNonsense() {
        for input in ["", "/etc/passwd", "http://example.invalid/crs", "EPSG:0", "+proj=nothing"] {
            #expect(throws: SourceReaderError.self, "\(input)") { try SpatialReference(userInput: input) }
        }
    }

    @Test func transformsThroughPROJ() throws {
        let t = try CoordinateTransformer(from: .wgs84, to: try SpatialReference(userInput: "EPSG:32613"))
        var xs = [-105.0, 200.0], ys = [0.0, 100.0]
        t.transform(xs: &xs, ys: &ys)
        #expect(abs(xs[0] - 500_000) < 1e-3 && abs(ys[0]) < 1e-3, "the central meridian of zone 13 is easting 500 km")
        #expect(xs[1].isNaN && ys[1].isNaN, "an impossible point becomes NaN")
    }
}

@Suite(.computeThreads) struct GeoTransformTests {
    @Test func inverseUndoesRotationAndShear() throws {
        let gt = GeoTransform([500_000, 29.5, 3.1, 4_400_000, 2.2, -30.4])
        let inv = try #require(gt.inverse)
        for (c, r) in [(0.0, 0.0), (123.5, 77.25), (1000, 2000)] {
            let p = gt.apply(col: c, row: r)
            let back = inv.apply(col: p.x, row: p.y)
            #expect(abs(back.x - c) < 1e-6 && abs(back.y - r) < 1e-6)
        }
        #expect(GeoTransform([0, 0, 0, 0, 0, 0]).inverse == nil)
        #expect(!gt.isNorthUp && GeoTransform([0, 1, 0, 0, 0, -1]).isNorthUp)
    }
}

@Suite(.computeThreads) struct RasterDatasetTests {
    let dir = TemporaryDirectory()
    static let box = GeoBounds(west: -106, south: 39, east: -105, north: 40)

    func make(
        _ name: String, _ args: [String], fromPNG: Bool = false,
        color: @escaping (Int, Int) -> (UInt8, UInt8, UInt8, UInt8) = TestSources.terrain
    ) throws -> String {
        let png = try TestSources.write(in: dir, name: name + "-src", width: 16, height: 8, bounds: Self.box, color: color)
        // An RGB GeoTIFF first (palette PNGs expanded), then the variant asked for.
        let rgb = dir.file(name + "-rgb.tif")
        do { try GDALTools.translate(png, rgb, ["-expand", "rgb", "-a_srs", "EPSG:4326"]) } catch {
            try GDALTools.translate(png, rgb, ["-a_srs", "EPSG:4326"])
        }
        let out = dir.file(name + ".tif")
        try GDALTools.translate(fromPNG || args.contains("-expand") ? png : rgb, out, ["-a_srs", "EPSG:4326"] + args)
        return out
    }

    func read(_ path: String, options: ReadOptions = ReadOptions()) throws -> (RasterDescription, [UInt8]) {
        let ds = try RasterDataset(path: path)
        let d = try ds.describe(options: options)
        var px = [UInt8](repeating: 7, count: d.width * d.height * 4)
        try px.withUnsafeMutableBufferPointer {
            try ds.readRGBA(d, level: 0, x0: 0, y0: 0, width: d.width, height: d.height, into: $0.baseAddress!)
        }
        return (d, px)
    }

    @Test func grayFansOutAndNodataIsTransparent() throws {
        let gray = try make("gray", ["-b", "1", "-a_nodata", "120"]) { c, _ in (c < 8 ? 120 : 200, 0, 0, 255) }
        let (d, px) = try read(gray)
        #expect(d.layout == .gray && d.transparency == .nodata([120]) && d.crs.kind == .epsg4326)
        #expect(Array(px[0..<4]) == [120, 120, 120, 0], "nodata pixel")
        #expect(Array(px[(12 * 4)..<(12 * 4 + 4)]) == [200, 200, 200, 255])
        // --src-nodata overrides the file's value.
        let (d2, px2) = try read(gray, options: ReadOptions(nodata: [200]))
        #expect(d2.transparency == .nodata([200]) && px2[3] == 255 && px2[12 * 4 + 3] == 0)
    }

    @Test func paletteAndAlphaBands() throws {
        let palette = try make("pal", [], fromPNG: true) { c, _ in c < 8 ? (10, 20, 30, 255) : (200, 100, 50, 255) }
        let (d, px) = try read(palette)
        #expect(d.layout == .palette)
        #expect(Array(px[0..<4]) == [10, 20, 30, 255] && Array(px[(12 * 4)..<(12 * 4 + 4)]) == [200, 100, 50, 255])
        let rgba = try make("rgba", ["-expand", "rgba"]) { c, _ in c < 8 ? (10, 20, 30, 255) : (200, 100, 50, 0) }
        let (d2, px2) = try read(rgba)
        #expect(d2.layout == .rgba && d2.transparency == .alphaBand && px2[3] == 255 && px2[12 * 4 + 3] == 0)
    }

    @Test func sixteenBitIsScaled() throws {
        let wide = try make("wide", ["-b", "1", "-ot", "UInt16", "-scale", "0", "255", "1000", "3000"]) { c, _ in (UInt8(c * 16), 0, 0, 255)
        }
        let (d, px) = try read(wide, options: ReadOptions(scale: (1000, 3000)))
        #expect(d.dataType == "UInt16" && d.scale?.min == 1000)
        #expect(px[0] == 0 && abs(Int(px[15 * 4]) - 240) <= 1)
        let (auto, _) = try read(wide)
        #expect(auto.scale.map { $0.min >= 1000 && $0.max <= 3000 } == true, "statistics of the band")
    }

    /// `--src-nodata` on a 16-bit band with no nodata of its own: the fill value is left out of
    /// the range its pixels are scaled from, as a declared nodata is.
    @Test func givenNodataIsLeftOutOfTheRange() throws {
        let filled = try make("filled", ["-b", "1", "-ot", "UInt16", "-scale", "0", "255", "0", "4080"]) { c, _ in
            (c < 4 ? 0 : UInt8(c * 16), 0, 0, 255)
        }
        let (plain, _) = try read(filled)
        #expect(plain.scale?.min == 0, "the fill counts when nothing says it is nodata")
        let (d, px) = try read(filled, options: ReadOptions(nodata: [0]))
        #expect(d.scale.map { $0.min >= 1024 && $0.max <= 3840 } == true, "\(String(describing: d.scale))")
        #expect(px[3] == 0 && px[4 * 4] == 0 && px[4 * 4 + 3] == 255 && px[15 * 4] == 255, "\(Array(px[0..<64]))")
    }

    /// A gray band of fewer than 8 bits a sample (TIFF NBITS) spans 0...2^n - 1, not 0...255;
    /// `--scale` still chooses.
    @Test func fewerThanEightBitsSpanTheirOwnRange() throws {
        for bits in [2, 4] {
            let top = (1 << bits) - 1
            let narrow = try make(
                "nbits\(bits)",
                [
                    "-b", "1", "-scale", "0", "255", "0", "\(top)", "-co", "NBITS=\(bits)",
                    "-co", "PHOTOMETRIC=MINISBLACK"
                ]
            ) { c, _ in (UInt8(c * 17), 0, 0, 255) }
            let (d, px) = try read(narrow)
            // Widened as read, not scaled: a layer's sources never share a range with it.
            #expect(d.layout == .gray && d.scale == nil && d.bitsPerSample == bits, "\(bits) bits")
            #expect(px[0] == 0 && px[15 * 4] == 255, "\(bits) bits: the top value is white, not \(px[15 * 4])")
            let mid = 1 << (bits - 1) // the first pixel of that value: column mid * 15 / top, rounded up
            let column = (0..<16).first { Int((Double($0 * 17) * Double(top) / 255).rounded()) == mid }!
            #expect(Int(px[column * 4]) == Int((Double(mid) * 255 / Double(top)).rounded()), "\(bits) bits: value \(mid)")
            let (given, gpx) = try read(narrow, options: ReadOptions(scale: (0, Double(2 * top))))
            #expect(given.scale?.max == Double(2 * top) && given.bitsPerSample == nil && abs(Int(gpx[15 * 4]) - 128) <= 1)
        }
        let full = try make("eight", ["-b", "1"]) { c, _ in (UInt8(c * 17), 0, 0, 255) }
        #expect(try read(full).0.scale == nil && read(full).0.bitsPerSample == nil, "8-bit bands are read as they are")

        // Gray + alpha at 4 bits: GDAL writes the alpha band at the band's depth; both are widened.
        let alpha = try make(
            "nbits-alpha",
            [
                "-b", "1", "-b", "1", "-scale", "0", "255", "0", "15", "-colorinterp", "gray,alpha",
                "-co", "NBITS=4", "-co", "ALPHA=YES", "-co", "PHOTOMETRIC=MINISBLACK"
            ]
        ) { c, _ in (UInt8(c * 17), 0, 0, 255) }
        let (ad, apx) = try read(alpha)
        #expect(ad.layout == .grayAlpha && ad.alphaBitsPerSample == 4)
        #expect(apx[15 * 4] == 255 && apx[15 * 4 + 3] == 255 && apx[3] == 0 && apx[8 * 4 + 3] == 136, "\(Array(apx[0..<64]))")
    }

    /// A Float32 raster (ENVI, written here byte by byte) with NaN holes: NaN is transparent and
    /// the band's own range (NaN ignored) maps to 0...255.
    @Test func floatBandsWithNaNHoles() throws {
        let values: [Float] = [10, 20, .nan, 30, 40, 50, .nan, 110]
        var data = Data()
        for v in values { withUnsafeBytes(of: v.bitPattern.littleEndian) { data.append(contentsOf: $0) } }
        let raw = try envi("dem", type: 4, samples: 4, lines: 2, pixel: (0.25, 0.5), data: data)
        let (d, px) = try read(raw)
        #expect(d.layout == .gray && d.dataType == "Float32")
        #expect(d.scale?.min == 10 && d.scale?.max == 110)
        #expect(px[2 * 4 + 3] == 0 && px[6 * 4 + 3] == 0, "NaN is transparent")
        #expect(Array(px[0..<4]) == [0, 0, 0, 255] && Array(px[(7 * 4)..<(7 * 4 + 4)]) == [255, 255, 255, 255])
        #expect(abs(Int(px[4 * 4]) - 77) <= 1, "40 of 10...110 is 30% of 255")
    }

    @Test func missingGeoreferenceAndCRSAreErrors() throws {
        let png = try TestSources.write(in: dir, name: "bare", width: 8, height: 8, bounds: Self.box, color: TestSources.terrain)
        try FileManager.default.removeItem(atPath: dir.file("bare.pgw"))
        let tif = dir.file("bare.tif")
        try GDALTools.translate(png, tif)
        #expect(throws: SourceReaderError.noGeoreference(path: tif)) { try RasterDataset(path: tif).describe(options: ReadOptions()) }
        let noCRS = dir.file("nocrs.tif")
        try GDALTools.translate(png, noCRS, ["-a_ullr", "0", "10", "10", "0"])
        #expect(throws: SourceReaderError.noCRS(path: noCRS)) { try RasterDataset(path: noCRS).describe(options: ReadOptions()) }
        let given = try RasterDataset(path: noCRS).describe(options: ReadOptions(crs: try SpatialReference(userInput: "EPSG:32613")))
        #expect(given.crsAssumed && given.crs.name.contains("UTM"))
        #expect(throws: SourceReaderError.self) { try RasterDataset(path: dir.file("absent.tif")) }
    }
}
