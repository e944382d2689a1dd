import CGDAL
import Foundation

extension RasterDescription {
    /// Whether the driver draws the pixels from a page description (a GeoPDF's vectors, text and
    /// images through poppler) rather than decoding stored ones. Each GDAL handle of such a file
    /// draws the whole page again on its first read, which takes seconds to minutes for a map
    /// sheet, so the builder draws it once (`RasterDataset.copyToGeoTIFF`) for all its threads.
    public var drawsPages: Bool { driver == "PDF" }
}

extension RasterDataset {
    /// Rows copied at once from a raster whose blocks are single rows.
    static let copyRows = 256

    /// Writes the raster's bands as the driver reads them (a PDF page drawn at the resolution of
    /// its open options) to a new GeoTIFF at `file` (a path GDAL can create: a name, or
    /// `/proc/self/fd/N` of a file already unlinked): 256-pixel tiles, ZSTD level 1 (LZW where
    /// GDAL has no ZSTD), BigTIFF when needed. Pixels only, the same grid and bands: the source's
    /// description (georeference, neatline, transparency) reads it unchanged. On failure the
    /// error names the raster.
    ///
    /// How it reads decides how often GDAL's PDF driver draws the page. Up to 8192 pixels a
    /// side its blocks are single rows, and it draws the whole page on the first band read and
    /// serves later ones from it: band by band, 256 rows at a time (reading all bands at once
    /// drew each strip again: 63 s against 23 s for one vector-heavy sheet). Larger pages come
    /// in 1024-pixel blocks, each drawn once for all bands when they are read together: all
    /// bands at once, a row of blocks at a time (band by band drew each block per band: a
    /// 10000×8000 page took over 120 s, against 4.6 s).
    public func copyToGeoTIFF(_ file: String) throws(SourceReaderError) {
        GDALEnvironment.resetError()
        guard let driver = GDALGetDriverByName("GTiff") else {
            throw .readFailed(path: path, reason: "GDAL has no GeoTIFF driver to hold the drawn page")
        }
        let bandCount = Int(GDALGetRasterCount(handle))
        guard bandCount > 0, let first = GDALGetRasterBand(handle, 1) else {
            throw .readFailed(path: path, reason: "it has no bands to draw")
        }
        let type = GDALGetRasterDataType(first)
        var blockWidth: Int32 = 0, blockHeight: Int32 = 0
        GDALGetBlockSize(first, &blockWidth, &blockHeight)
        let byRows = Int(blockWidth) >= width
        let strip = byRows ? Self.copyRows : max(1, min(Int(blockHeight), height))
        let creationOptions = String(cString: GDALGetMetadataItem(UnsafeMutableRawPointer(driver), GDAL_DMD_CREATIONOPTIONLIST, nil))
        let compression = creationOptions.contains("ZSTD") ? ["COMPRESS=ZSTD", "ZSTD_LEVEL=1"] : ["COMPRESS=LZW"]
        let options = ["TILED=YES", "BLOCKXSIZE=256", "BLOCKYSIZE=256", "BIGTIFF=IF_SAFER"] + compression
        var list: [UnsafeMutablePointer<CChar>?] = options.map { strdup($0) } + [nil]
        defer { for p in list { free(p) } }
        let created = list.withUnsafeMutableBufferPointer { o in
            GDALCreate(driver, file, Int32(width), Int32(height), Int32(bandCount), type, o.baseAddress)
        }
        guard let copy = created else {
            throw .readFailed(
                path: path, reason: "drawing it into \(file) failed: \(GDALEnvironment.lastError(or: "GDAL could not create the file"))")
        }
        let sampleBytes = Int(GDALGetDataTypeSizeBytes(type))
        var buffer = [UInt8](repeating: 0, count: width * min(strip, height) * sampleBytes * (byRows ? 1 : bandCount))
        var failure: String?
        strips: for y in stride(from: 0, to: height, by: strip) {
            let rows = min(strip, height - y)
            let (x0, y0, w, h) = (Int32(0), Int32(y), Int32(width), Int32(rows))
            if byRows {
                for b in 1...bandCount {
                    guard let from = GDALGetRasterBand(handle, Int32(b)), let to = GDALGetRasterBand(copy, Int32(b)) else {
                        failure = "band \(b) is missing"
                        break strips
                    }
                    let ok = buffer.withUnsafeMutableBytes { p in
                        GDALRasterIO(from, GF_Read, x0, y0, w, h, p.baseAddress, w, h, type, 0, 0) == CE_None
                            && GDALRasterIO(to, GF_Write, x0, y0, w, h, p.baseAddress, w, h, type, 0, 0) == CE_None
                    }
                    if !ok {
                        failure = GDALEnvironment.lastError(or: "GDAL could not copy rows \(y)-\(y + rows - 1) of band \(b)")
                        break strips
                    }
                }
            } else {
                let n = Int32(bandCount)
                let ok = buffer.withUnsafeMutableBytes { p in
                    GDALDatasetRasterIO(handle, GF_Read, x0, y0, w, h, p.baseAddress, w, h, type, n, nil, 0, 0, 0) == CE_None
                        && GDALDatasetRasterIO(copy, GF_Write, x0, y0, w, h, p.baseAddress, w, h, type, n, nil, 0, 0, 0) == CE_None
                }
                if !ok {
                    failure = GDALEnvironment.lastError(or: "GDAL could not copy rows \(y)-\(y + rows - 1)")
                    break strips
                }
            }
        }
        GDALEnvironment.resetError()
        GDALClose(copy)
        if failure == nil, CPLGetLastErrorType() == CE_Failure { failure = GDALEnvironment.lastError(or: "GDAL could not write it") }
        if let failure {
            throw .readFailed(path: path, reason: "drawing it into \(file) failed: \(failure)")
        }
    }
}
