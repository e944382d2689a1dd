/// A nodata value as a band's pixels, read as Float32, hold it. Metadata often writes the float
/// extremes rounded (`-3.40282e+38`): pixels may hold that value as a float (what `gdalwarp
/// -dstnodata -3.40282e+38` writes) or the exact extreme −FLT_MAX (what most DEM tools write).
/// Both count, as GDAL counts them (GDALAdjustNoDataCloseToFloatMax).
struct FloatNodata {
    let value: Float
    /// ±FLT_MAX when the nodata is within 1e-5 of it, else nil.
    let extreme: Float?

    init(_ nodata: Double) {
        value = Float(nodata)
        let max = Double(Float.greatestFiniteMagnitude)
        extreme = abs(abs(nodata) - max) <= max * 1e-5 ? (nodata < 0 ? -.greatestFiniteMagnitude : .greatestFiniteMagnitude) : nil
    }

    func matches(_ pixel: Float) -> Bool { pixel == value || (extreme != nil && pixel == extreme) }
}
