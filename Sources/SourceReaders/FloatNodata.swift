/// A nodata value as a Float32 band's pixels hold it. Metadata often writes the float extremes
/// rounded (`-3.40282e+38`), which is not exactly `-Float.greatestFiniteMagnitude`; GDAL takes a
/// value that close to ±FLT_MAX as ±FLT_MAX (GDALAdjustNoDataCloseToFloatMax), and so does this.
enum FloatNodata {
    static func value(_ nodata: Double) -> Float {
        let max = Double(Float.greatestFiniteMagnitude)
        if abs(abs(nodata) - max) <= max * 1e-5 { return nodata < 0 ? -.greatestFiniteMagnitude : .greatestFiniteMagnitude }
        return Float(nodata)
    }
}
