import CGDAL

/// The range of values a band's pixels are mapped to 0-255 from, when `--scale` is not given.
enum BandRange {
    /// Pixels read at most along each side when GDAL's own minimum/maximum is not finite.
    static let sampleSide = 1024

    /// The band's minimum and maximum: GDAL's (from overviews or a sample where it can), or,
    /// when that is infinite (a floating-point band holding ±inf), the finite values' range
    /// over a decimated read of the band, without its nodata value. Nil when it holds no finite
    /// value that is not nodata. With `nodata` (`--src-nodata`, overriding the file's), always
    /// the decimated read, without that value: GDAL's own statistics would count it. GDAL's
    /// statistics failing (it finds no valid pixel in its sample) also falls back to the read,
    /// whose errors are the ones reported. `signedBytes`: a `PIXELTYPE=SIGNEDBYTE` band, whose
    /// values GDAL reads as 0...255.
    static func of(_ band: GDALRasterBandH, path: String, nodata given: Double? = nil,
                   signedBytes: Bool = false) throws(SourceReaderError) -> (min: Double, max: Double)? {
        if let given { return try finite(band, path: path, nodata: given, signedBytes: signedBytes) }
        var minmax = [0.0, 0.0]
        GDALEnvironment.resetError()
        if GDALComputeRasterMinMax(band, 1, &minmax) == CE_None, minmax[0].isFinite, minmax[1].isFinite {
            return (minmax[0], minmax[1])
        }
        return try finite(band, path: path, signedBytes: signedBytes)
    }

    private static func finite(_ band: GDALRasterBandH, path: String, nodata given: Double? = nil,
                               signedBytes: Bool) throws(SourceReaderError) -> (min: Double, max: Double)? {
        let w = Int(GDALGetRasterBandXSize(band)), h = Int(GDALGetRasterBandYSize(band))
        let bw = min(w, sampleSide), bh = min(h, sampleSide)
        var values = [Double](repeating: .nan, count: bw * bh)
        GDALEnvironment.resetError()
        let err = values.withUnsafeMutableBufferPointer {
            GDALRasterIO(band, GF_Read, 0, 0, Int32(w), Int32(h), $0.baseAddress, Int32(bw), Int32(bh), GDT_Float64, 0, 0)
        }
        guard err == CE_None else {
            throw .readFailed(path: path, reason: GDALEnvironment.lastError(or: "GDAL could not read the band to find its range (give --scale MIN,MAX)"))
        }
        var has: Int32 = 0
        var nodata = GDALGetRasterNoDataValue(band, &has)
        if let given { (nodata, has) = (given, given.isNaN ? 0 : 1) }
        // A Float32 band's nodata is compared as a Float, as its pixels are (`FloatNodata`).
        let single = GDALGetRasterDataType(band) == GDT_Float32, f = FloatNodata(nodata)
        func isNodata(_ v: Double) -> Bool { has != 0 && (single ? f.matches(Float(v)) : v == nodata) }
        var lo = Double.infinity, hi = -Double.infinity
        if signedBytes { for i in values.indices where values[i] >= 128 { values[i] -= 256 } }
        for v in values where v.isFinite && !isNodata(v) {
            lo = min(lo, v)
            hi = max(hi, v)
        }
        return lo <= hi ? (lo, hi) : nil
    }
}
