/// How a raster's bands become RGBA.
public enum BandLayout: String, Sendable, Hashable {
    case gray
    case grayAlpha = "gray+alpha"
    case palette
    /// Palette indices and an alpha band (what `gdalwarp -dstalpha` makes of a paletted map).
    case paletteAlpha = "palette+alpha"
    case rgb = "RGB"
    case rgba = "RGBA"

    /// Whether one of the bands is alpha.
    public var hasAlpha: Bool { self == .grayAlpha || self == .paletteAlpha || self == .rgba }
    /// Whether the colour band holds indices into a colour table.
    public var isPalette: Bool { self == .palette || self == .paletteAlpha }
}

/// Where a source's transparency comes from (in this order of precedence).
public enum Transparency: Sendable, Hashable {
    /// Every pixel is opaque.
    case none
    /// An alpha band.
    case alphaBand
    /// Pixels whose every colour band equals its value here are transparent (NaN: the band has
    /// none, so no pixel is); NaN pixels of floating-point bands are always transparent.
    case nodata([Double])
    /// GDAL's mask band (an internal or `.msk` mask): 0 is transparent.
    case mask
    /// An alpha band, and `ReadOptions.nodata`'s values as `nodata` (a pixel is transparent where
    /// either says so).
    case alphaBandAndNodata([Double])

    /// The values whose pixels are transparent, when there are any.
    public var nodataValues: [Double]? {
        switch self {
        case let .nodata(values), let .alphaBandAndNodata(values): values
        case .none, .alphaBand, .mask: nil
        }
    }
}

/// What the user says about sources, overriding what the files declare.
public struct ReadOptions: Sendable {
    /// The CRS of every source, whatever it declares.
    public var crs: SpatialReference?
    /// The nodata values: one for every band, or one per colour band.
    public var nodata: [Double]?
    /// The range (minimum, maximum) of non-8-bit bands that maps to 0...255.
    public var scale: (min: Double, max: Double)?
    /// How sources georeferenced by ground control points are fitted.
    public var gcpTransform: GCPTransform
    /// The bands to read (1-based; 1 gray or palette, 2 gray+alpha, 3 RGB, 4 RGBA).
    public var bands: [Int]?
    /// GDAL open options (`KEY=VALUE`), e.g. `DPI=300` for GeoPDFs.
    public var openOptions: [String]
    /// Whether the description is for drawing: without `scale`, a non-8-bit band's pixels are
    /// read for the range to scale. A source whose values are read as they are (a DEM's
    /// elevations) describes with false: no pixel is read, and its description has no `scale`.
    public var forDrawing = true

    /// `values` as band numbers for `bands` (1 to 4 whole numbers from 1), or nil when they are not.
    public static func bandNumbers(_ values: [Double]) -> [Int]? {
        guard (1...4).contains(values.count), values.allSatisfy({ (1...65_535).contains($0) && $0 == $0.rounded() }) else { return nil }
        return values.map { Int($0) }
    }

    /// Whether `text` is a GDAL open option, `KEY=VALUE` with a non-empty key without spaces.
    public static func isOpenOption(_ text: String) -> Bool {
        guard let eq = text.firstIndex(of: "="), eq != text.startIndex else { return false }
        return !text[..<eq].contains(" ")
    }

    public init(
        crs: SpatialReference? = nil, nodata: [Double]? = nil, scale: (min: Double, max: Double)? = nil,
        gcpTransform: GCPTransform = .auto, bands: [Int]? = nil, openOptions: [String] = []
    ) {
        self.crs = crs
        self.nodata = nodata
        self.scale = scale
        self.gcpTransform = gcpTransform
        self.bands = bands
        self.openOptions = openOptions
    }
}

/// An overview's size and how many full-resolution pixels one of its pixels spans per axis.
public struct OverviewLevel: Sendable, Hashable {
    public let width: Int
    public let height: Int
    /// GDAL's overview index.
    let index: Int
}

/// Everything the builder needs to know about a source before reading pixels.
public struct RasterDescription: Sendable {
    public let path: String
    /// GDAL open options it is opened with (`ReadOptions.openOptions`).
    public let openOptions: [String]
    /// GDAL's driver, e.g. `GTiff`, `VRT`, `JP2OpenJPEG`.
    public let driver: String
    public let width: Int
    public let height: Int
    public let layout: BandLayout
    /// GDAL's name of the pixel type, e.g. `Byte`, `UInt16`.
    public let dataType: String
    /// The bands read (1-based): the colour bands, then alpha.
    public let bands: [Int]
    /// A geotransform, or ground control points.
    public let georeferencing: Georeferencing
    public let crs: SpatialReference
    /// Whether the CRS came from `ReadOptions.crs` or the EPSG:4326 default of world files, not the file.
    public let crsAssumed: Bool
    public let transparency: Transparency
    /// RGBA of each palette index (palette layout only).
    public let palette: [UInt8]
    /// The range mapped to 0...255 for non-8-bit bands (nil for 8-bit).
    public private(set) var scale: (min: Double, max: Double)?
    /// The file's overviews, largest first (none for most non-tiled formats).
    public let overviews: [OverviewLevel]
    /// The map's neatline when the file declares one that cuts a collar off (geospatial PDFs):
    /// pixels outside it read as transparent.
    public var neatline: Neatline? = nil
    /// A `NEATLINE` metadata item that lies off the raster, not applied (a warning says so).
    public var neatlineOffTheRaster = false
    /// The colour bands' bits a sample when fewer than 8 (a TIFF's `NBITS`; not palettes, not
    /// under a given `scale`): 0...2^n - 1 is widened to 0...255 as the bands are read.
    public var bitsPerSample: Int? = nil
    /// The same for an 8-bit-typed alpha band.
    public var alphaBitsPerSample: Int? = nil
    /// Whether the bands hold signed bytes that GDAL types as `Byte` (a GeoTIFF's
    /// `PIXELTYPE=SIGNEDBYTE`, GDAL before 3.7): -128...127, read through `scale` like 16-bit bands.
    public var signedBytes = false
    /// Every pixel of its non-8-bit bands is nodata or NaN: it draws nothing, its `scale` is a
    /// placeholder, and a layer's joint range leaves it out.
    public var nothingToDraw = false
    /// Options the user gave that do not apply to this source, each for a warning.
    public var unusedOptions: [IgnoredReadOption] = []
    /// The other files GDAL reads for it (`GDALGetFileList`: a VRT's member rasters, `.msk`,
    /// `.ovr`, `.aux.xml`, world files), so that an update sees a change in any of them.
    public var companionFiles: [String] = []
    /// A GeoTIFF holding the raster's pixels as its driver drew them (a GeoPDF page rendered
    /// once, `RasterDataset.copyToGeoTIFF`), opened in place of `path`, without `openOptions`.
    public var renderedCopy: String? = nil
}

extension RasterDescription {
    /// How many full-resolution pixels one pixel of `level` (0: full resolution, n: overview n)
    /// spans, per axis.
    public func scale(ofLevel level: Int) -> (x: Double, y: Double) {
        guard level > 0 else { return (1, 1) }
        let o = overviews[level - 1]
        return (Double(width) / Double(o.width), Double(height) / Double(o.height))
    }

    /// The window of full-resolution pixels outside which nothing is drawn
    /// (`Neatline.drawnWindow`); the whole raster when no neatline cuts it.
    public var drawnWindow: (x0: Int, y0: Int, x1: Int, y1: Int) {
        neatline?.drawnWindow(width: width, height: height, coarsest: scale(ofLevel: overviews.count))
            ?? (0, 0, width, height)
    }

    /// The same raster with its non-8-bit bands mapped from `range` (sources of one series share
    /// a range, so that sheets meet without a step in brightness).
    public func scaled(from range: (min: Double, max: Double)) -> RasterDescription {
        var copy = self
        if copy.scale != nil { copy.scale = range }
        return copy
    }
}
