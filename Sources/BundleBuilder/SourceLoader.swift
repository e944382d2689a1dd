import Foundation
import Logging
import Raster
import SourceReaders
import TileGeometry

/// A source whose header and georeference were read, not yet decoded.
public struct SourceInfo: Sendable {
    /// How the pixels are read.
    public enum Kind: Sendable {
        /// TrailMap's own streaming PNG decoder (PNG + world file or JSON sidecar).
        case png
        /// GDAL, window by window.
        case raster(RasterDescription)
    }

    public let path: String
    public private(set) var kind: Kind
    public let width: Int
    public let height: Int
    public let crs: SpatialReference
    /// A geotransform, or ground control points.
    public let georeferencing: Georeferencing
    /// Extent in degrees (unclipped); a source crossing the antimeridian spans every longitude.
    public let bounds: GeoBounds
    /// Extent in Web Mercator metres, clipped to the Mercator square.
    public let mercatorBounds: MercatorBounds
    /// Where the source lies: `bounds` itself, or its two parts either side of the antimeridian.
    public let parts: [GeoBounds]
    /// For a source in degrees whose longitudes run past ±180° (a 0–360° grid, a sheet across
    /// 180°), the middle of its longitudes: tiles' longitudes are moved by whole turns to within
    /// 180° of it. Nil otherwise.
    public var longitudeWindow: Double? = nil
    /// Whether its pixels are palette colours (a colour table; a PNG of colour type 3), drawn
    /// by point samples under `average` (`Raster.Supersampling`). Read at inspection.
    public var isPaletted = false
    /// The size of one of its pixels in Web Mercator metres, as GDAL suggests a warp's output
    /// resolution (`SourceFootprint.pixelSize`); nil when it cannot be told. Found at inspection.
    public var mercatorPixelSize: Double? = nil
    /// The source's file and the others GDAL reads for it (`RasterDescription.companionFiles`):
    /// what an update stamps and hashes.
    public var files: [String] {
        if case let .raster(d) = kind { return [path] + d.companionFiles }
        return [path]
    }
    /// Options given that do not apply to this source, each for a warning.
    func unusedOptions(scaleGiven: Bool) -> [IgnoredReadOption] {
        switch kind {
        case .png: scaleGiven ? [.scaleOn8Bit(palette: isPaletted)] : []
        case let .raster(d): d.unusedOptions
        }
    }
    /// `parts` in Web Mercator metres, clipped to the Mercator square.
    public var mercatorParts: [MercatorBounds] { parts.compactMap { $0.clippedToMercator?.mercator } }

    /// A line for logs: size, format, CRS.
    var summary: String {
        switch kind {
        case .png: "\(width)x\(height) PNG, \(crs.name)"
        case let .raster(d):
            "\(width)x\(height) \(d.driver) \(d.layout.rawValue) \(d.dataType), \(crs.name), \(d.overviews.count) overview(s)"
                + (d.georeferencing.groundControlPoints.map { ", \($0.points.count) ground control points (\($0.fit))" } ?? "")
                + (d.georeferencing.isRationalPolynomials ? ", RPC sensor model" : "")
                + (d.neatline.map { ", a neatline of \($0.xs.count) vertices cuts its collar" } ?? "")
        }
    }
}

extension SourceInfo {
    /// The same source with its non-8-bit bands mapped from `range`.
    func scaled(from range: (min: Double, max: Double)) -> SourceInfo {
        guard case let .raster(d) = kind else { return self }
        var copy = self
        copy.kind = .raster(d.scaled(from: range))
        return copy
    }
}

/// Checks sources before anything is written, then opens or decodes them.
enum SourceLoader {
    /// The range covering every non-8-bit source's own (each from its band minimum and
    /// maximum), or nil when none has one: sheets of one series scaled alike.
    static func sharedScale(_ infos: [SourceInfo]) -> (min: Double, max: Double)? {
        let ranges = infos.compactMap { info -> (min: Double, max: Double)? in
            if case let .raster(d) = info.kind, !d.nothingToDraw { return d.scale }
            return nil
        }
        guard let lo = ranges.map(\.min).min(), let hi = ranges.map(\.max).max() else { return nil }
        return (lo, hi)
    }

    static let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// Reads a source's header and georeference; any problem is an error naming the file.
    static func inspect(_ path: String, options: ReadOptions) throws(BuildError) -> SourceInfo {
        guard let stat = GDALFiles.stat(path) else { throw .sourceMissing(path: path) }
        guard stat.size > 0 else { throw .sourceEmpty(path: path) }
        // TrailMap's own PNG decoder knows no nodata values, band choices, open options or GDAL's
        // virtual files, nor rotated world files or ground control points: GDAL reads those PNGs.
        let colourType = GDALFiles.isGDALName(path) ? nil : pngColourType(path)
        let png = colourType != nil
        if let colourType, options.nodata == nil, options.bands == nil, options.openOptions.isEmpty,
            let info = try inspectPNG(path, paletted: colourType == 3, options: options)
        {
            return info
        }
        do { return try inspectRaster(path, options: options) } catch {
            // A PNG GDAL finds no georeference for either: say what TrailMap looks for beside it.
            if png, case .source(.noGeoreference) = error { throw .georeference(.missing(image: path)) }
            throw error
        }
    }

    /// A PNG file's colour type (3: palette), nil when the file is not a PNG. The IHDR chunk
    /// comes first: its colour type is byte 25 of the file.
    private static func pngColourType(_ path: String) -> UInt8? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let head = (try? handle.read(upToCount: 26)).map({ [UInt8]($0) }), head.count == 26,
            Array(head[0..<8]) == pngSignature
        else { return nil }
        return head[25]
    }

    /// A PNG with a world file or JSON sidecar, read by TrailMap's own decoder; nil when GDAL
    /// must read it (no georeference TrailMap finds, or ground control points in an `.aux.xml`).
    /// A PNG that GDAL wrote (`gdal_translate -of PNG -co WORLDFILE=YES`, a QGIS export) declares
    /// its CRS, and may declare its geotransform, in an `.aux.xml` beside it; a world file may be
    /// rotated or flipped. GDAL reads those georeferences (in its order of georeference sources,
    /// the `.aux.xml` first), and TrailMap still decodes the pixels.
    private static func inspectPNG(_ path: String, paletted: Bool, options: ReadOptions) throws(BuildError) -> SourceInfo? {
        let reader: PNGRowReader
        do { reader = try PNGRowReader(path: path) } catch { throw .sourceUnreadable(path: path, error) }
        var declared: (crs: SpatialReference, transform: GeoTransform)?
        // What GDAL reads, asked at most once.
        var asked: GDALGeoreference??
        func viaGDAL() throws(BuildError) -> GDALGeoreference? {
            if let asked { return asked }
            let read = try gdalGeoreference(path, options: options)
            asked = .some(read)
            return read
        }
        if FileManager.default.fileExists(atPath: path + ".aux.xml") {
            switch try viaGDAL() {
            case let .affine(crs, transform): declared = (crs, transform)
            case .notAffine: return nil
            case .none: break // the .aux.xml holds no georeference: the world file or JSON sidecar
            }
        }
        if declared == nil {
            let worldFileCRS: CRS = options.crs?.kind == .epsg3857 ? .epsg3857 : .epsg4326
            do {
                let g = try SidecarLocator.locate(
                    image: path, width: reader.width, height: reader.height,
                    worldFileCRS: worldFileCRS)
                declared = (
                    options.crs ?? (g.crs == .epsg3857 ? .webMercator : .wgs84),
                    GeoTransform(c0: g.originX, c1: g.pixelWidth, c2: 0, c3: g.originY, c4: 0, c5: -g.pixelHeight)
                )
            } catch {
                switch error {
                case .notNorthUp:
                    guard case let .affine(crs, transform) = try viaGDAL() else { return nil }
                    declared = (crs, transform)
                case .missing: return nil
                default: throw .georeference(error)
                }
            }
        }
        guard let (crs, gt) = declared else { return nil }
        let f = try footprint(path: path, width: reader.width, height: reader.height, crs: crs, georeferencing: .affine(gt))
        return SourceInfo(
            path: path, kind: .png, width: reader.width, height: reader.height, crs: crs, georeferencing: .affine(gt),
            bounds: f.bounds, mercatorBounds: f.mercator, parts: f.parts, longitudeWindow: f.longitudeWindow,
            isPaletted: paletted, mercatorPixelSize: f.pixelSize)
    }

    /// What GDAL reads of a PNG's georeference.
    private enum GDALGeoreference {
        case affine(SpatialReference, GeoTransform)
        /// Ground control points or RPCs: GDAL reads the whole source.
        case notAffine
    }

    /// The georeference and CRS GDAL reads for a PNG (`ReadOptions.crs` first), nil when it finds none.
    private static func gdalGeoreference(_ path: String, options: ReadOptions) throws(BuildError) -> GDALGeoreference? {
        do {
            let read = try RasterDataset(path: path).georeference(options: options)
            guard let transform = read.georeferencing.affine else { return .notAffine }
            return .affine(read.crs, transform)
        } catch {
            if case .noGeoreference = error { return nil }
            throw .source(error)
        }
    }

    private static func inspectRaster(_ path: String, options: ReadOptions) throws(BuildError) -> SourceInfo {
        let description: RasterDescription
        do { description = try RasterDataset(path: path, openOptions: options.openOptions).describe(options: options) } catch {
            throw .source(error)
        }
        let f = try footprint(
            path: path, width: description.width, height: description.height,
            crs: description.crs, georeferencing: description.georeferencing,
            window: description.drawnWindow)
        return SourceInfo(
            path: path, kind: .raster(description), width: description.width, height: description.height,
            crs: description.crs, georeferencing: description.georeferencing, bounds: f.bounds,
            mercatorBounds: f.mercator, parts: f.parts, longitudeWindow: f.longitudeWindow,
            isPaletted: description.layout.isPalette, mercatorPixelSize: f.pixelSize)
    }

    /// The source's footprint (`SourceFootprint`), with its problems as the build's.
    static func footprint(
        path: String, width: Int, height: Int, crs: SpatialReference, georeferencing: Georeferencing,
        window: SourceFootprint.PixelBox? = nil
    ) throws(BuildError) -> SourceFootprint {
        do {
            return try SourceFootprint(
                path: path, width: width, height: height, crs: crs, georeferencing: georeferencing,
                window: window)
        } catch {
            if case let .outsideMercator(path, bounds) = error { throw .outsideMercator(path: path, bounds: bounds) }
            throw .source(error)
        }
    }

    /// Makes a source renderable: a PNG is decoded into a pyramid (in memory when it fits
    /// `memoryBudget`, else spilled to `scratch`); a GDAL raster is opened per thread later.
    /// A PNG whose rows alone, as the pyramid keeps them while decoding, would take more than
    /// half of `memoryLimit` (the share PNG sources may hold) is refused before anything is
    /// allocated.
    static func prepare(
        _ info: SourceInfo, style: LayerStyle, memoryBudget: Int, memoryLimit: Int,
        scratch: String, logger: Logger, drawings: RenderedPage.Drawings
    ) throws(BuildError)
        -> (PreparedSource, SourcePyramid?)
    {
        switch info.kind {
        case let .raster(description) where description.drawsPages && description.transparency != .mask:
            // A GeoPDF: drawn once, when a thread first needs it, and read from the copy (which
            // holds the bands, not a mask band: a page with one is read per thread as before).
            let page = RenderedPage(description, scratch: scratch, logger: logger, drawings: drawings)
            return (
                PreparedSource(info, style: style) { () throws(SourceReaderError) in try GDALWindowReader(try page.description()) }, nil
            )
        case let .raster(description):
            return (PreparedSource(info, style: style) { () throws(SourceReaderError) in try GDALWindowReader(description) }, nil)
        case .png:
            // The pyramid holds about four full-width RGBA rows at once (two a level, halving).
            let rows = info.width.multipliedReportingOverflow(by: 16)
            guard !rows.overflow, rows.partialValue <= memoryLimit / 2 else {
                throw .pngRowsTooWide(
                    path: info.path, width: info.width, decodeBytes: rows.overflow ? Int.max : rows.partialValue,
                    memoryLimit: memoryLimit)
            }
            do {
                let reader = try PNGRowReader(path: info.path)
                let pyramid = try SourcePyramid(reader: reader, memoryBudget: memoryBudget, spillDirectory: scratch)
                return (PreparedSource(info, style: style) { pyramid }, pyramid)
            } catch let error as PNGError {
                throw .sourceUnreadable(path: info.path, error)
            } catch let error as SourceReaderError {
                throw .source(error)
            } catch {
                throw .pixels(path: info.path, reason: "\(error)")
            }
        }
    }
}
