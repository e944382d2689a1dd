import CGDAL
import Foundation

/// One open elevation raster (any DEM GDAL reads: GeoTIFF, COG, VRT, SRTM `.hgt`, in any CRS),
/// read as elevations in metres warped onto Web Mercator tile grids. Not thread-safe: each
/// thread opens its own.
public final class DEMReader {
    public let path: String
    let handle: GDALDatasetH
    /// The unit of the band's values.
    public let unit: VerticalUnit
    /// The band's scale and offset (raw × scale + offset is in `unit`).
    let scale: Double, offset: Double
    /// The source's CRS as WKT (its own, or the one given in its place).
    let sourceWKT: String
    static let mercatorWKT = SpatialReference.webMercator.wkt
    /// Web Mercator metres to the source's pixels, made on first use (`DEMBilinear`).
    var pixelTransformer: DEMPixelTransformer?
    /// `DEMBilinear`'s buffers (pixel positions, the transformer's, the DEM's window), kept from
    /// one call to the next.
    var bilinearScratch: (xs: [Double], ys: [Double], zs: [Double], ok: [Int32], window: [Float]) = ([], [], [], [], [])

    /// Opens `path`'s first band. `crs` replaces the CRS the file declares; `unit` replaces the
    /// unit its band names (an unknown unit name is an error unless it is given).
    public init(path: String, crs: SpatialReference?, unit given: VerticalUnit? = nil) throws(SourceReaderError) {
        GDALEnvironment.prepare()
        GDALEnvironment.resetError()
        guard let h = GDALOpenEx(path, UInt32(GDAL_OF_RASTER | GDAL_OF_READONLY), nil, nil, nil) else {
            throw .cannotOpen(path: path, reason: GDALEnvironment.lastError(or: "not a raster GDAL reads"))
        }
        guard GDALGetRasterCount(h) >= 1, let band = GDALGetRasterBand(h, 1) else {
            GDALClose(h)
            throw .unsupportedBands(path: path, detail: "no band")
        }
        var gt = [Double](repeating: 0, count: 6)
        if GDALGetGeoTransform(h, &gt) != CE_None && GDALGetGCPCount(h) == 0 {
            GDALClose(h)
            throw .noGeoreference(path: path)
        }
        let wkt: String
        if let crs {
            wkt = crs.wkt
        } else if let ref = GDALGetSpatialRef(h) ?? (GDALGetGCPCount(h) > 0 ? GDALGetGCPSpatialRef(h) : nil) {
            var out: UnsafeMutablePointer<CChar>?
            OSRExportToWkt(ref, &out)
            wkt = out.map { String(cString: $0) } ?? ""
            VSIFree(out)
        } else {
            wkt = ""
        }
        guard !wkt.isEmpty else {
            GDALClose(h)
            throw .noCRS(path: path)
        }
        if let given {
            unit = given
        } else {
            let name = GDALGetRasterUnitType(band).map { String(cString: $0) } ?? ""
            guard let u = VerticalUnit(gdalName: name) else {
                GDALClose(h)
                throw .unknownVerticalUnit(path: path, unit: name)
            }
            unit = u
        }
        var has: Int32 = 0
        let s = GDALGetRasterScale(band, &has)
        scale = has != 0 && s != 0 ? s : 1
        let o = GDALGetRasterOffset(band, &has)
        offset = has != 0 ? o : 0
        sourceWKT = wkt
        self.path = path
        handle = h
    }

    deinit {
        pixelTransformer = nil
        GDALClose(handle)
    }

    /// How the source's pixels are gathered onto a tile's.
    public enum Sampling: String, Sendable {
        /// The mean of the source pixels under each tile pixel (tile pixels coarser than the source's).
        case average
        /// Bilinear interpolation (tile pixels as fine as the source's or finer).
        case bilinear
        /// The lowest and the highest source pixel under each tile pixel (from the full-resolution
        /// pixels, never an overview's means): bounds of the elevations a tile can hold.
        case minimum = "min"
        case maximum = "max"
    }

    /// Elevations in metres of a Web Mercator box cut in `size`² pixels, with `border` more
    /// pixels on every side (rows north first; NaN where the source has no elevation: nodata,
    /// outside it). The box is `(minX, minY, maxX, maxY)` in EPSG:3857 metres.
    ///
    /// - Parameter errorThreshold: the largest error in source pixels of the transformer's
    ///   interpolation between exactly transformed points (0: every pixel transformed exactly;
    ///   nil: GDAL's default, 0.125).
    public func elevations(
        minX: Double, minY: Double, maxX: Double, maxY: Double, size: Int, border: Int,
        sampling: Sampling, errorThreshold: Double? = nil
    ) throws(SourceReaderError) -> [Float] {
        try elevations(
            minX: minX, minY: minY, maxX: maxX, maxY: maxY, width: size, height: size, border: border, sampling: sampling,
            errorThreshold: errorThreshold)
    }

    /// Elevations in metres of a Web Mercator box cut in `width` × `height` pixels (several
    /// tiles side by side: one warp for all of them), with `border` more pixels on every side,
    /// `width + 2 × border` values a row, rows north first.
    public func elevations(
        minX: Double, minY: Double, maxX: Double, maxY: Double, width: Int, height: Int, border: Int,
        sampling: Sampling, errorThreshold: Double? = nil
    ) throws(SourceReaderError) -> [Float] {
        // Finer tile pixels than the DEM's: interpolated here from the DEM's pixels read once,
        // as GDAL's warper would (see `DEMBilinear`), when the band's voids are its nodata.
        if sampling == .bilinear,
            let own = try bilinearElevations(
                minX: minX, minY: minY, maxX: maxX, maxY: maxY, width: width, height: height, border: border,
                errorThreshold: errorThreshold)
        {
            return own
        }
        return try warpedElevations(
            minX: minX, minY: minY, maxX: maxX, maxY: maxY, width: width, height: height, border: border,
            sampling: sampling, errorThreshold: errorThreshold)
    }

    /// `elevations(minX:minY:maxX:maxY:width:height:border:sampling:errorThreshold:)` by GDAL's
    /// warper, whatever the sampling.
    public func warpedElevations(
        minX: Double, minY: Double, maxX: Double, maxY: Double, width: Int, height: Int, border: Int,
        sampling: Sampling, errorThreshold: Double? = nil
    ) throws(SourceReaderError) -> [Float] {
        let nx = width + 2 * border, ny = height + 2 * border
        let px = (maxX - minX) / Double(width), py = (maxY - minY) / Double(height)
        guard let mem = GDALGetDriverByName("MEM"), let dst = GDALCreate(mem, "", Int32(nx), Int32(ny), 1, GDT_Float32, nil) else {
            throw .readFailed(path: path, reason: "cannot make the tile's grid in memory")
        }
        defer { GDALClose(dst) }
        var gt = [minX - Double(border) * px, px, 0, maxY + Double(border) * py, 0, -py]
        GDALSetGeoTransform(dst, &gt)
        GDALSetProjection(dst, Self.mercatorWKT)
        // The warper skips the parts of the grid no source pixel reaches (leaving them as made,
        // zero): voids from the start.
        GDALFillRaster(GDALGetRasterBand(dst, 1), .nan, 0)
        let args =
            ["-r", sampling.rawValue, "-wo", "INIT_DEST=NaN", "-s_srs", sourceWKT] + (errorThreshold.map { ["-et", "\($0)"] } ?? [])
            + ([.minimum, .maximum].contains(sampling) ? ["-ovr", "NONE"] : [])
        var argv: [UnsafeMutablePointer<CChar>?] = args.map { strdup($0) } + [nil]
        defer { for p in argv { free(p) } }
        guard let options = GDALWarpAppOptionsNew(&argv, nil) else {
            throw .readFailed(path: path, reason: "the warper refused its options")
        }
        defer { GDALWarpAppOptionsFree(options) }
        GDALEnvironment.resetError()
        var src: GDALDatasetH? = handle
        var usageError: Int32 = 0
        let warped = GDALWarp(nil, dst, 1, &src, options, &usageError)
        guard warped != nil else {
            throw .readFailed(path: path, reason: GDALEnvironment.lastError(or: "warping to the tile's grid failed"))
        }
        var out = [Float](repeating: .nan, count: nx * ny)
        let band = GDALGetRasterBand(dst, 1)
        let err = out.withUnsafeMutableBytes {
            GDALRasterIO(band, GF_Read, 0, 0, Int32(nx), Int32(ny), $0.baseAddress, Int32(nx), Int32(ny), GDT_Float32, 0, 0)
        }
        guard err == CE_None else { throw .readFailed(path: path, reason: GDALEnvironment.lastError(or: "reading the warped tile failed")) }
        let factor = Float(scale * unit.metres), shift = Float(offset * unit.metres)
        if factor != 1 || shift != 0 {
            for i in out.indices where !out[i].isNaN { out[i] = out[i] * factor + shift }
        }
        return out
    }

    /// The lowest and highest elevation in metres, or nil when every pixel is a void.
    ///
    /// - Parameter approximate: from a sample of the raster's blocks (or an overview) when GDAL
    ///   has one, not every pixel; nil then still means no elevation at all (the whole raster is
    ///   read again before saying so).
    public func range(approximate: Bool = false) -> (min: Double, max: Double)? {
        guard let band = GDALGetRasterBand(handle, 1) else { return nil }
        var mm = [Double](repeating: 0, count: 2)
        CPLPushErrorHandler(CPLQuietErrorHandler)
        defer { CPLPopErrorHandler() }
        guard GDALComputeRasterMinMax(band, approximate ? 1 : 0, &mm) == CE_None, mm[0].isFinite, mm[1].isFinite else {
            return approximate ? range(approximate: false) : nil
        }
        let a = (mm[0] * scale + offset) * unit.metres, b = (mm[1] * scale + offset) * unit.metres
        return (Swift.min(a, b), Swift.max(a, b))
    }
}
