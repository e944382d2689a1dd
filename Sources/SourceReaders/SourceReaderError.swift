import TileGeometry

/// Why a source raster cannot be used; each case names the file (or the option) and the problem.
/// `description` names no command-line flag: a program that sets these options words its own
/// advice from the cases' facts.
public enum SourceReaderError: Error, CustomStringConvertible, Equatable {
    case cannotOpen(path: String, reason: String)
    /// The file cannot be opened for want of file descriptors (the system's message).
    case tooManyOpenFiles(path: String, reason: String)
    case noGeoreference(path: String)
    case badGroundControlPoints(path: String, reason: String)
    case badRationalPolynomials(path: String, reason: String)
    case degenerateGeoTransform(path: String)
    case noCRS(path: String)
    case badCRS(input: String, reason: String)
    /// Fewer ground control points (`count`) than the fit needs (`GCPTransform.minimumPoints`).
    case tooFewGroundControlPoints(path: String, count: Int, fit: GCPTransform)
    case transformFailed(path: String, reason: String)
    /// The CRS is a local (engineering) one, not tied to the Earth: PROJ cannot transform it
    /// (PROJ's reason); the raster's real CRS has to be given.
    case localCRS(path: String, reason: String)
    case unsupportedBands(path: String, detail: String)
    /// A container of several rasters (GeoPackage tables, netCDF or HDF variables) with no
    /// bands of its own: its rasters' names (subdatasets), each of which can be read.
    case containerOfRasters(path: String, names: [String])
    /// The bands chosen to read (`ReadOptions.bands`) are not 1 to 4 band numbers (how many).
    case bandChoiceCount(path: String, count: Int)
    /// A band chosen to read is not one of the raster's: the band, how many it has, and their
    /// colour interpretations.
    case bandChoiceOutOfRange(path: String, band: Int, bandCount: Int, names: String)
    /// More than four bands and none chosen: how many, and their colour interpretations.
    case tooManyBands(path: String, count: Int, names: String)
    /// The nodata values given (`ReadOptions.nodata`) are neither one nor one per colour band.
    case nodataCount(path: String, given: Int, colourBands: Int)
    /// A non-8-bit band's range (mapped to 0-255) could not be read (GDAL's reason).
    case bandRangeUnreadable(path: String, reason: String)
    case unsupportedDataType(path: String, type: String)
    case readFailed(path: String, reason: String)
    /// A DEM's band names a vertical unit that is not a length this reader knows (the name).
    case unknownVerticalUnit(path: String, unit: String)
    /// Every pixel of a DEM is a void (nodata or NaN).
    case noElevations(path: String)
    /// The raster's extent in degrees (`SourceFootprint.bounds`) lies outside the Web Mercator range.
    case outsideMercator(path: String, bounds: GeoBounds)

    public var description: String {
        switch self {
        case let .cannotOpen(path, reason): "\(path): GDAL cannot open it as a raster: \(reason)"
        case let .tooManyOpenFiles(path, reason):
            """
            \(path): GDAL cannot open it as a raster: too many open files (\(reason)): raise the limit (ulimit -n) or open fewer files at \
            once
            """
        case let .noGeoreference(path):
            "\(path): the raster has no georeference (no geotransform, ground control points or RPCs in the file, no world file beside it)"
        case let .badGroundControlPoints(path, reason):
            "\(path): its ground control points cannot georeference it: \(reason)"
        case let .badRationalPolynomials(path, reason):
            "\(path): its rational polynomial coefficients (RPC) cannot georeference it: \(reason)"
        case let .degenerateGeoTransform(path): "\(path): the geotransform is degenerate (zero pixel size)"
        case let .noCRS(path):
            "\(path): the raster declares no coordinate reference system; give the sources' one (an EPSG code, WKT or PROJ string)"
        case let .badCRS(input, reason): "unknown coordinate reference system '\(input)': \(reason)"
        case let .tooFewGroundControlPoints(path, count, fit):
            """
            \(path): its ground control points cannot georeference it: \(count) point(s); the \(fit) fit needs at least \
            \(fit.minimumPoints)
            """
        case let .transformFailed(path, reason): "\(path): cannot transform its coordinates to Web Mercator: \(reason)"
        case let .localCRS(path, reason):
            """
            \(path): cannot transform its coordinates to Web Mercator: its CRS is a local (engineering) one, not tied to the Earth: give \
            the real one (\(reason))
            """
        case let .unsupportedBands(path, detail):
            Self.bandLayout(path, detail)
        case let .containerOfRasters(path, names):
            Self.bandLayout(
                path, "no bands of its own: it holds \(Self.listed(names)); read one of them\(names.first.map { ", e.g. '\($0)'" } ?? "")")
        case let .bandChoiceCount(path, count): Self.bandLayout(path, "the bands to read are 1 to 4 band numbers, got \(count)")
        case let .bandChoiceOutOfRange(path, band, bandCount, names):
            Self.bandLayout(path, "band \(band) is not one of its bands 1-\(bandCount) (\(names))")
        case let .tooManyBands(path, count, names): Self.bandLayout(path, "\(count) bands: \(names); choose the ones to read, e.g. 1,2,3")
        case let .nodataCount(path, given, colourBands):
            "\(path): \(given) nodata values given; the raster has \(colourBands) colour band(s): give 1 or \(colourBands)"
        case let .bandRangeUnreadable(path, reason): "\(path): reading pixels failed: \(reason) (while finding the bands' range)"
        case let .unsupportedDataType(path, type): "\(path): unsupported pixel type \(type)"
        case let .readFailed(path, reason): "\(path): reading pixels failed: \(reason)"
        case let .unknownVerticalUnit(path, unit):
            "\(path): the elevations' unit \"\(unit)\" is not one TrailMap knows (metres, feet, US survey feet)"
        case let .noElevations(path): "\(path): every pixel is a void (nodata or NaN): the DEM holds no elevation"
        case let .outsideMercator(path, bounds):
            "\(path): the source covers \(bounds), which lies outside the Web Mercator range (latitudes ±85.05°, longitudes ±180°)"
        }
    }

    /// "unsupported band layout" with the problem in parentheses.
    public static func bandLayout(_ path: String, _ detail: String) -> String {
        "\(path): unsupported band layout (\(detail)); TrailMap reads gray, gray+alpha, palette, RGB and RGBA rasters"
    }

    /// "N raster(s) (a, b, c, ...)": a container's rasters, the first three named.
    public static func listed(_ names: [String]) -> String {
        "\(names.count) raster(s) (\(names.prefix(3).joined(separator: ", "))\(names.count > 3 ? ", ..." : ""))"
    }
}
