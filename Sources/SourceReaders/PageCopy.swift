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
    /// Writes the raster's bands as the driver reads them (a PDF page drawn at the resolution of
    /// its open options) to a GeoTIFF at `file`: 256-pixel tiles, ZSTD level 1 (LZW where GDAL
    /// has no ZSTD), BigTIFF when needed, with the georeference and metadata GDAL copies. The same
    /// pixel grid and bands, so the source's description reads it unchanged. On failure the
    /// partial file is removed and the error names the raster.
    public func copyToGeoTIFF(_ file: String) throws(SourceReaderError) {
        GDALEnvironment.resetError()
        guard let driver = GDALGetDriverByName("GTiff") else {
            throw .readFailed(path: path, reason: "GDAL has no GeoTIFF driver to hold the drawn page")
        }
        let creationOptions = String(cString: GDALGetMetadataItem(UnsafeMutableRawPointer(driver), GDAL_DMD_CREATIONOPTIONLIST, nil))
        let compression = creationOptions.contains("ZSTD") ? ["COMPRESS=ZSTD", "ZSTD_LEVEL=1"] : ["COMPRESS=LZW"]
        let options = ["TILED=YES", "BLOCKXSIZE=256", "BLOCKYSIZE=256", "BIGTIFF=IF_SAFER"] + compression
        var list: [UnsafeMutablePointer<CChar>?] = options.map { strdup($0) } + [nil]
        defer { for p in list { free(p) } }
        let copy = list.withUnsafeMutableBufferPointer { o in
            GDALCreateCopy(driver, file, handle, 0, o.baseAddress, nil, nil)
        }
        let failed = copy == nil || CPLGetLastErrorType() == CE_Failure
        let reason = GDALEnvironment.lastError(or: "GDAL could not write it")
        if let copy { GDALClose(copy) }
        if failed || CPLGetLastErrorType() == CE_Failure {
            unlink(file)
            throw .readFailed(path: path, reason: "drawing it into \(file) failed: \(reason)")
        }
    }
}
