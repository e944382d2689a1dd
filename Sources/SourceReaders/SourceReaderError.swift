/// Why a source raster cannot be used; each case names the file (or the option) and the problem.
public enum SourceReaderError: Error, CustomStringConvertible, Equatable {
    case cannotOpen(path: String, reason: String)
    case noGeoreference(path: String)
    case badGroundControlPoints(path: String, reason: String)
    case badRationalPolynomials(path: String, reason: String)
    case degenerateGeoTransform(path: String)
    case noCRS(path: String)
    case badCRS(input: String, reason: String)
    case transformFailed(path: String, reason: String)
    case unsupportedBands(path: String, detail: String)
    case unsupportedDataType(path: String, type: String)
    case badNodata(path: String, detail: String)
    case readFailed(path: String, reason: String)
    /// A DEM's band names a vertical unit that is not a length this reader knows (the name).
    case unknownVerticalUnit(path: String, unit: String)
    /// Every pixel of a DEM is a void (nodata or NaN).
    case noElevations(path: String)

    public var description: String {
        switch self {
        case let .cannotOpen(path, reason): "\(path): GDAL cannot open it as a raster: \(reason)"
        case let .noGeoreference(path):
            "\(path): the raster has no georeference (no geotransform, ground control points or RPCs in the file, no world file beside it)"
        case let .badGroundControlPoints(path, reason):
            "\(path): its ground control points cannot georeference it: \(reason)"
        case let .badRationalPolynomials(path, reason):
            "\(path): its rational polynomial coefficients (RPC) cannot georeference it: \(reason)"
        case let .degenerateGeoTransform(path): "\(path): the geotransform is degenerate (zero pixel size)"
        case let .noCRS(path):
            "\(path): the raster declares no coordinate reference system; give one with --source-crs (an EPSG code, WKT or PROJ string)"
        case let .badCRS(input, reason): "unknown coordinate reference system '\(input)': \(reason)"
        case let .transformFailed(path, reason): "\(path): cannot transform its coordinates to Web Mercator: \(reason)"
        case let .unsupportedBands(path, detail):
            "\(path): unsupported band layout (\(detail)); TrailMap reads gray, gray+alpha, palette, RGB and RGBA rasters"
        case let .unsupportedDataType(path, type): "\(path): unsupported pixel type \(type)"
        case let .badNodata(path, detail): "\(path): \(detail)"
        case let .readFailed(path, reason): "\(path): reading pixels failed: \(reason)"
        case let .unknownVerticalUnit(path, unit):
            "\(path): the elevations' unit \"\(unit)\" is not one TrailMap knows (metres, feet, US survey feet)"
        case let .noElevations(path): "\(path): every pixel is a void (nodata or NaN): the DEM holds no elevation"
        }
    }
}
