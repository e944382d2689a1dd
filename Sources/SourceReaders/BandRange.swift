import CGDAL

/// The range of values a band's pixels are mapped to 0-255 from, when no `ReadOptions.scale` is given.
enum BandRange {
    /// Pixels read at once when the band is scanned by TrailMap (rows of the band, at least one).
    static let chunkPixels = 1 << 22

    /// The band's exact minimum and maximum, every pixel read: GDAL's, or, when that is infinite
    /// (a floating-point band holding ±inf), the finite values' range, without its nodata value.
    /// Nil when it holds no finite value that is not nodata. With `nodata` (`ReadOptions.nodata`,
    /// overriding the file's), always TrailMap's own scan, without that value: GDAL's would
    /// count it. GDAL's failing (it finds no valid pixel) also falls back to the scan, whose
    /// errors are the ones reported. `signedBytes`: a `PIXELTYPE=SIGNEDBYTE` band, whose values
    /// GDAL reads as 0...255. (GDAL's approximate statistics, from overviews or a sample, miss
    /// small extremes: a band of one value but for a few pixels came out constant, and drew black.)
    static func of(
        _ band: GDALRasterBandH, path: String, nodata given: Double? = nil,
        signedBytes: Bool = false
    ) throws(SourceReaderError) -> (min: Double, max: Double)? {
        if let given { return try finite(band, path: path, nodata: given, signedBytes: signedBytes) }
        var minmax = [0.0, 0.0]
        GDALEnvironment.resetError()
        if GDALComputeRasterMinMax(band, 0, &minmax) == CE_None, minmax[0].isFinite, minmax[1].isFinite {
            return (minmax[0], minmax[1])
        }
        return try finite(band, path: path, signedBytes: signedBytes)
    }

    private static func finite(
        _ band: GDALRasterBandH, path: String, nodata given: Double? = nil,
        signedBytes: Bool
    ) throws(SourceReaderError) -> (min: Double, max: Double)? {
        var has: Int32 = 0
        var nodata = GDALGetRasterNoDataValue(band, &has)
        if let given { (nodata, has) = (given, given.isNaN ? 0 : 1) }
        // A Float32 band's nodata is compared as a Float, as its pixels are (`FloatNodata`).
        let single = GDALGetRasterDataType(band) == GDT_Float32, f = FloatNodata(nodata)
        func isNodata(_ v: Double) -> Bool { has != 0 && (single ? f.matches(Float(v)) : v == nodata) }
        let w = Int(GDALGetRasterBandXSize(band)), h = Int(GDALGetRasterBandYSize(band))
        let rows = max(1, chunkPixels / max(w, 1))
        var values = [Double](repeating: .nan, count: w * min(rows, h))
        var lo = Double.infinity, hi = -Double.infinity
        for y in stride(from: 0, to: h, by: rows) {
            let n = min(rows, h - y)
            GDALEnvironment.resetError()
            let err = values.withUnsafeMutableBufferPointer {
                GDALRasterIO(band, GF_Read, 0, Int32(y), Int32(w), Int32(n), $0.baseAddress, Int32(w), Int32(n), GDT_Float64, 0, 0)
            }
            guard err == CE_None else {
                throw .bandRangeUnreadable(path: path, reason: GDALEnvironment.lastError(or: "GDAL could not read the band"))
            }
            for var v in values[0..<(w * n)] {
                if signedBytes, v >= 128 { v -= 256 }
                guard v.isFinite, !isNodata(v) else { continue }
                lo = min(lo, v)
                hi = max(hi, v)
            }
        }
        return lo <= hi ? (lo, hi) : nil
    }
}
