import CGDAL
import Foundation

// The raster's georeference and CRS.

extension RasterDataset {
    /// The raster's georeference (a geotransform, ground control points or RPCs, in GDAL's order
    /// of georeference sources: `.aux.xml`, the file, a world file) and its CRS: `options.crs`,
    /// else the declared one, else WGS 84 for a world file (`assumed` then).
    public func georeference(
        options: ReadOptions
    ) throws(SourceReaderError)
        -> (georeferencing: Georeferencing, crs: SpatialReference, assumed: Bool)
    {
        let georeferencing: Georeferencing
        let declaredCRS: UnsafePointer<CChar>?
        var gt = [Double](repeating: 0, count: 6)
        if GDALGetGeoTransform(handle, &gt) == CE_None {
            georeferencing = .affine(GeoTransform(gt))
            declaredCRS = GDALGetProjectionRef(handle)
        } else if GDALGetGCPCount(handle) > 0, let list = GDALGetGCPs(handle) {
            let points = (0..<Int(GDALGetGCPCount(handle))).map { i in
                GroundControlPoint(pixel: list[i].dfGCPPixel, line: list[i].dfGCPLine, x: list[i].dfGCPX, y: list[i].dfGCPY)
            }
            georeferencing = .groundControlPoints(points, options.gcpTransform)
            declaredCRS = GDALGetGCPProjection(handle)
        } else if let rpc = GDALGetMetadata(handle, "RPC"), CSLCount(rpc) > 0 {
            georeferencing = .rationalPolynomials((0..<Int(CSLCount(rpc))).compactMap { i in rpc[i].map { String(cString: $0) } })
            declaredCRS = nil
        } else {
            throw .noGeoreference(path: path)
        }

        let crs: SpatialReference
        var assumed = false
        if case .rationalPolynomials = georeferencing {
            crs = .wgs84 // RPCs map pixels to WGS 84 longitudes and latitudes, whatever `options.crs` says
        } else if let given = options.crs {
            crs = given
            assumed = true
        } else if let wkt = declaredCRS.map({ String(cString: $0) }), !wkt.isEmpty {
            crs = try SpatialReference(wkt: wkt)
        } else if hasWorldFile {
            crs = .wgs84 // world files say nothing of the CRS; TrailMap's default for them
            assumed = true
        } else {
            throw .noCRS(path: path)
        }

        return (georeferencing, crs, assumed)
    }
}
