import CGDAL
import Foundation

// The bands: their layout, bits a sample, transparency and overviews.

extension RasterDataset {
    /// Values of `bits` bits a sample (0...2^bits - 1) to 0...255, as a PNG of that depth shows
    /// them; larger values (not in such a file) to 255. Made once for 1 to 7 bits.
    static func widening(_ bits: Int) -> [UInt8] { wideningTables[bits] }

    private static let wideningTables: [[UInt8]] = (0..<8).map { bits in
        let top = max(1, (1 << bits) - 1)
        return (0..<256).map { v in v >= top ? 255 : UInt8((Double(v) * 255 / Double(top)).rounded()) }
    }

    /// Whether an 8-bit band holds signed values (`PIXELTYPE=SIGNEDBYTE`, `IMAGE_STRUCTURE`
    /// domain: how GDAL before 3.7 types a GeoTIFF's signed 8-bit samples).
    static func holdsSignedBytes(_ band: GDALRasterBandH) -> Bool {
        GDALGetMetadataItem(band, "PIXELTYPE", "IMAGE_STRUCTURE").map { String(cString: $0) } == "SIGNEDBYTE"
    }

    /// A band's bits a sample when fewer than 8 (GDAL's `NBITS` item, `IMAGE_STRUCTURE` domain).
    static func bitsPerSample(_ band: GDALRasterBandH) -> Int? {
        guard let item = GDALGetMetadataItem(band, "NBITS", "IMAGE_STRUCTURE"), let n = Int(String(cString: item)),
            (1..<8).contains(n)
        else { return nil }
        return n
    }

    /// The layout and the bands it reads (1-based: colour bands, then alpha): `chosen` (`ReadOptions.bands`)
    /// when given, else by the band count, a last band counting as alpha only when GDAL says so
    /// (its colour interpretation, or the dataset's mask being an alpha band), as gdal2tiles
    /// decides. So a 4-band red, green, blue, near-infrared image (NAIP) is read as RGB.
    static func layout(
        path: String, bands: [GDALRasterBandH],
        chosen: [Int]?
    ) throws(SourceReaderError) -> (BandLayout, [Int]) {
        let interp = bands.map { GDALGetRasterColorInterpretation($0) }
        let names = interp.map { String(cString: GDALGetColorInterpretationName($0)) }.joined(separator: ", ")
        let isPalette = { (i: Int) in interp[i - 1] == GCI_PaletteIndex && GDALGetRasterColorTable(bands[i - 1]) != nil }
        if let chosen {
            guard (1...4).contains(chosen.count) else {
                throw .bandChoiceCount(path: path, count: chosen.count)
            }
            for b in chosen where !(1...bands.count).contains(b) {
                throw .bandChoiceOutOfRange(path: path, band: b, bandCount: bands.count, names: names)
            }
            let layouts: [BandLayout] = [
                isPalette(chosen[0]) ? .palette : .gray, isPalette(chosen[0]) ? .paletteAlpha : .grayAlpha, .rgb, .rgba
            ]
            return (layouts[chosen.count - 1], chosen)
        }
        let lastIsAlpha =
            interp.last == GCI_AlphaBand
            || GDALGetMaskFlags(bands[0]) & (GMF_ALPHA | GMF_PER_DATASET) == (GMF_ALPHA | GMF_PER_DATASET)
        switch bands.count {
        case 1:
            return (isPalette(1) ? .palette : .gray, [1])
        case 2:
            if isPalette(1) { return lastIsAlpha ? (.paletteAlpha, [1, 2]) : (.palette, [1]) }
            return lastIsAlpha ? (.grayAlpha, [1, 2]) : (.gray, [1])
        case 3:
            return (.rgb, [1, 2, 3])
        case 4:
            return lastIsAlpha ? (.rgba, [1, 2, 3, 4]) : (.rgb, [1, 2, 3])
        default:
            throw .tooManyBands(path: path, count: bands.count, names: names)
        }
    }

    func transparency(
        layout: BandLayout, bands: [GDALRasterBandH], colourBands: Int,
        options: ReadOptions
    ) throws(SourceReaderError) -> Transparency {
        if let given = options.nodata {
            guard given.count == 1 || given.count == colourBands else {
                throw .nodataCount(path: path, given: given.count, colourBands: colourBands)
            }
            let values = given.count == 1 ? Array(repeating: given[0], count: colourBands) : given
            return layout.hasAlpha ? .alphaBandAndNodata(values) : .nodata(values)
        }
        if layout.hasAlpha { return .alphaBand }
        var values = [Double]()
        var any = false
        for band in bands.prefix(colourBands) {
            var has: Int32 = 0
            let v = GDALGetRasterNoDataValue(band, &has)
            values.append(has != 0 ? v : .nan)
            any = any || has != 0
        }
        if any { return .nodata(values) }
        // A per-dataset mask: an internal or .msk mask, or an alpha band the chosen bands leave out.
        let flags = GDALGetMaskFlags(bands[0])
        if flags & GMF_ALL_VALID == 0, flags & GMF_PER_DATASET != 0, flags & GMF_NODATA == 0 {
            return .mask
        }
        return .none
    }

    func overviews(bands: [GDALRasterBandH]) -> [OverviewLevel] {
        let count = Int(bands.map { GDALGetOverviewCount($0) }.min() ?? 0)
        var levels = [OverviewLevel]()
        for i in 0..<count {
            guard let o = GDALGetOverview(bands[0], Int32(i)) else { continue }
            let w = Int(GDALGetRasterBandXSize(o)), h = Int(GDALGetRasterBandYSize(o))
            if w > 0, h > 0, w < width || h < height { levels.append(OverviewLevel(width: w, height: h, index: i)) }
        }
        return levels.sorted { $0.width > $1.width }
    }
}
