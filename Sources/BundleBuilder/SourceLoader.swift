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
    /// resolution (`ZoomChoice.pixelSize`); nil when it cannot be told. Found at inspection.
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
           let info = try inspectPNG(path, paletted: colourType == 3, options: options) {
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
              Array(head[0..<8]) == pngSignature else { return nil }
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
            case .none: break   // the .aux.xml holds no georeference: the world file or JSON sidecar
            }
        }
        if declared == nil {
            let worldFileCRS: CRS = options.crs?.kind == .epsg3857 ? .epsg3857 : .epsg4326
            do {
                let g = try SidecarLocator.locate(image: path, width: reader.width, height: reader.height,
                                                       worldFileCRS: worldFileCRS)
                declared = (options.crs ?? (g.crs == .epsg3857 ? .webMercator : .wgs84),
                            GeoTransform(c0: g.originX, c1: g.pixelWidth, c2: 0, c3: g.originY, c4: 0, c5: -g.pixelHeight))
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
        return SourceInfo(path: path, kind: .png, width: reader.width, height: reader.height, crs: crs, georeferencing: .affine(gt),
                          bounds: f.bounds, mercatorBounds: f.mercator, parts: f.parts, longitudeWindow: f.window,
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
        let f = try footprint(path: path, width: description.width, height: description.height,
                              crs: description.crs, georeferencing: description.georeferencing,
                              window: description.drawnWindow)
        return SourceInfo(path: path, kind: .raster(description), width: description.width, height: description.height,
                          crs: description.crs, georeferencing: description.georeferencing, bounds: f.bounds,
                          mercatorBounds: f.mercator, parts: f.parts, longitudeWindow: f.window,
                          isPaletted: description.layout.isPalette, mercatorPixelSize: f.pixelSize)
    }

    /// The source's extent in degrees (a 33 × 33 grid of points over the raster, edges included,
    /// transformed to WGS 84: interior points catch extremes the outline misses, such as a pole
    /// inside a polar stereographic raster) and in Web Mercator metres (latitudes clipped to the
    /// Mercator range). A source whose longitudes are narrowest taken across the antimeridian
    /// (UTM zone 1 or 60, Alaska Albers) spans every longitude in `bounds`, and `parts` holds its
    /// two sides. A source in degrees past ±180° gets the `window` its tiles are mapped through.
    /// With a pixel `window` (the part a neatline leaves drawn), the footprint is that part's.
    static func footprint(path: String, width fullWidth: Int, height fullHeight: Int, crs: SpatialReference,
                          georeferencing: Georeferencing, window pixels: (x0: Int, y0: Int, x1: Int, y1: Int)? = nil)
        throws(BuildError)
        -> (bounds: GeoBounds, mercator: MercatorBounds, parts: [GeoBounds], window: Double?, pixelSize: Double?) {
        let whole = (x0: 0, y0: 0, x1: fullWidth, y1: fullHeight)
        let box = pixels.flatMap { $0.x1 > $0.x0 && $0.y1 > $0.y0 ? $0 : nil } ?? whole
        let (width, height) = (box.x1 - box.x0, box.y1 - box.y0)
        let steps = 32
        let locator: PixelGeolocator
        do { locator = try PixelGeolocator(georeferencing, path: path) } catch { throw .source(error) }
        // One transformer to degrees serves both grids (the finer one only where points fall
        // outside the projection's domain).
        let toDegrees: CoordinateTransformer?
        if crs.kind == nil {
            do { toDegrees = try CoordinateTransformer(from: crs, to: .wgs84, path: path) } catch { throw .source(error) }
        } else {
            toDegrees = nil
        }
        /// A `steps + 1` × `steps + 1` grid of points over the pixel box, in longitude/latitude
        /// (NaN where a point has none).
        func grid(_ steps: Int) -> (xs: [Double], ys: [Double]) {
            var xs = [Double](), ys = [Double]()
            for j in 0...steps {
                for i in 0...steps {
                    xs.append(Double(box.x0) + Double(i) / Double(steps) * Double(width))
                    ys.append(Double(box.y0) + Double(j) / Double(steps) * Double(height))
                }
            }
            locator.toCRS(xs: &xs, ys: &ys)
            switch crs.kind {
            case .epsg4326?:
                break
            case .epsg3857?:
                for i in xs.indices { (xs[i], ys[i]) = WebMercator.unproject(x: xs[i], y: ys[i]) }
            case nil:
                toDegrees?.transform(xs: &xs, ys: &ys)
            }
            return (xs, ys)
        }
        /// The indices of points that have a longitude of their own: finite, and not at a pole
        /// (PROJ gives a pole an arbitrary longitude, e.g. 0 for a polar stereographic quadrant
        /// whose corner is the pole).
        func placed(_ xs: [Double], _ ys: [Double]) -> [Int] {
            xs.indices.filter { xs[$0].isFinite && ys[$0].isFinite && abs(ys[$0]) < 90 - 1e-7 }
        }
        let (xs, ys) = grid(steps)
        let valid = xs.indices.filter { xs[$0].isFinite && ys[$0].isFinite }
        guard !valid.isEmpty else {
            throw .source(.transformFailed(path: path, reason: "no point of the raster maps to longitude/latitude"))
        }
        // The window's first and last corners (pixel (0, 0) and (width, height) of a whole raster),
        // before any wrapping.
        let corners = (lon0: xs[0], lat0: ys[0], lon1: xs[xs.count - 1], lat1: ys[ys.count - 1])
        // A point at a pole counts for its latitude, not its longitude.
        let withLongitude = placed(xs, ys)
        var lons = (withLongitude.isEmpty ? valid : withLongitude).map { xs[$0] }
        // An edge on the antimeridian, of a raster on one side of it, is that side's: ±180° as
        // PROJ gives it would otherwise span the world (a polar quadrant from -180° to -90°).
        let onEdge = { (lon: Double) in abs(abs(lon) - 180) <= 1e-9 }
        let inside = lons.filter { !onEdge($0) }
        if !inside.isEmpty, inside.allSatisfy({ $0 < 0 }) || inside.allSatisfy({ $0 > 0 }) {
            let side: Double = inside[0] < 0 ? -180 : 180
            lons = lons.map { onEdge($0) ? side : $0 }
        }
        var bounds = GeoBounds(west: lons.min()!, south: valid.map { ys[$0] }.min()!,
                               east: lons.max()!, north: valid.map { ys[$0] }.max()!)
        var parts = [bounds]
        var window: Double?
        let crossing = Antimeridian.crossingSpan(lons)
        /// Two parts either side of 180°; bounds over every longitude (MBTiles bounds cannot wrap).
        func splitAcross180(_ span: (west: Double, east: Double)) {
            parts = Antimeridian.parts(GeoBounds(west: span.west, south: bounds.south, east: span.east, north: bounds.north))
            (bounds.west, bounds.east) = (-180, 180)
        }
        // Past ±180° by more than half a pixel: an edge a rounding error beyond it is clipped.
        let slack = max(1e-9, 0.5 * (bounds.east - bounds.west) / Double(max(width, 1)))
        if crs.kind != nil, bounds.west < -180 - slack || bounds.east > 180 + slack,
           georeferencing.affine != nil {
            // Degrees (or Web Mercator metres) past ±180°: a whole turn or more is the world;
            // else wrapped into ±180°, in two parts when it crosses 180°.
            window = (bounds.west + bounds.east) / 2
            if bounds.east - bounds.west >= 360 {
                (bounds.west, bounds.east) = (-180, 180)
                parts = [bounds]
            } else if let span = crossing {
                splitAcross180(span)
            } else {
                let wrapped = lons.map(Antimeridian.wrap)
                (bounds.west, bounds.east) = (wrapped.min()!, wrapped.max()!)
                parts = [bounds]
            }
        } else if crs.kind == nil, let span = crossing {
            // Through PROJ, which gives longitudes within ±180°.
            splitAcross180(span)
        } else if georeferencing.affine == nil,
                  crossing.map({ $0.west < 180 - slack && $0.east > 180 + slack }) == true
                    || bounds.west < -180 - slack || bounds.east > 180 + slack {
            // Degrees from control points or RPCs: their fit is not wrapped, so they are refused there.
            throw .source(.transformFailed(path: path, reason: "it crosses the antimeridian, where rasters georeferenced in degrees by control points or RPCs are not read; warp it to a projected CRS first (gdalwarp -t_srs EPSG:32660, or -rpc for RPCs)"))
        }
        if crs.kind == nil {
            // A pole inside the raster (a polar stereographic map, an orthographic view): every
            // longitude, up to the pole, which the grid's points only come near.
            for pole in [90.0, -90.0] where Self.holds(pole: pole, crs: crs, locator: locator, box: box, path: path) {
                (bounds.west, bounds.east) = (-180, 180)
                if pole > 0 { bounds.north = 90 } else { bounds.south = -90 }
                parts = [bounds]
            }
            // Points outside the projection's domain (the corners of a world Mollweide, around an
            // orthographic disc): the outline lies between them and the valid ones, up to one
            // grid step further than the valid points reach.
            if valid.count < xs.count {
                var step = Self.largestStep(xs: xs, ys: ys, side: steps + 1)
                // On one side of the antimeridian, a grid four times finer places the outline
                // closer, and its smaller steps grow the bounds less (a full-disc GEOS view:
                // about ±85° for its ±81°, not ±96°).
                if parts.count == 1, bounds.east - bounds.west < 360 {
                    let fine = 4 * steps
                    let (fx, fy) = grid(fine)
                    let finePlaced = placed(fx, fy)
                    let lons = finePlaced.map { fx[$0] }, lats = finePlaced.map { fy[$0] }
                    if let w = lons.min(), let e = lons.max(), e - w < 180, let s = lats.min(), let n = lats.max() {
                        bounds = GeoBounds(west: min(bounds.west, w), south: min(bounds.south, s),
                                           east: max(bounds.east, e), north: max(bounds.north, n))
                        parts = [bounds]
                        let fineStep = Self.largestStep(xs: fx, ys: fy, side: fine + 1)
                        step = (min(step.lon, fineStep.lon), min(step.lat, fineStep.lat))
                    }
                }
                func grown(_ b: GeoBounds) -> GeoBounds {
                    GeoBounds(west: max(-180, b.west - step.lon), south: max(-90, b.south - step.lat),
                              east: min(180, b.east + step.lon), north: min(90, b.north + step.lat))
                }
                bounds = grown(bounds)
                parts = parts.map(grown)
            }
        }
        guard bounds.west >= -180.5, bounds.east <= 180.5, bounds.south >= -90.5, bounds.north <= 90.5,
              let clipped = bounds.clippedToMercator
        else { throw .outsideMercator(path: path, bounds: bounds) }
        let size = ZoomChoice.pixelSize(corners: corners, acrossAntimeridian: parts.count == 2, parts: parts, bounds: bounds,
                                        width: width, height: height)
        return (bounds, clipped.mercator, parts, window, size)
    }

    /// Whether the pixel `box` holds the pole at latitude `pole`: a ring of points 0.01° from
    /// it, every 45° of longitude, all strictly inside (a raster that only touches the pole, or
    /// a CRS where the pole is a line, fails).
    static func holds(pole: Double, crs: SpatialReference, locator: PixelGeolocator,
                      box: (x0: Int, y0: Int, x1: Int, y1: Int), path: String) -> Bool {
        guard let back = try? CoordinateTransformer(from: .wgs84, to: crs, path: path) else { return false }
        var px = (0..<8).map { Double($0) * 45 - 180 }, py = [Double](repeating: pole * 0.999_9, count: 8)
        back.transform(xs: &px, ys: &py)
        locator.toPixels(xs: &px, ys: &py)
        return px.indices.allSatisfy {
            px[$0] > Double(box.x0) && px[$0] < Double(box.x1) && py[$0] > Double(box.y0) && py[$0] < Double(box.y1)
        }
    }

    /// The largest longitude and latitude steps between neighbouring valid points of a `side` ×
    /// `side` grid (longitudes the short way round).
    static func largestStep(xs: [Double], ys: [Double], side: Int) -> (lon: Double, lat: Double) {
        var step = (lon: 0.0, lat: 0.0)
        for j in 0..<side {
            for i in 0..<side {
                let a = j * side + i
                guard xs[a].isFinite, ys[a].isFinite else { continue }
                for b in [i + 1 < side ? a + 1 : -1, j + 1 < side ? a + side : -1] where b >= 0 && xs[b].isFinite && ys[b].isFinite {
                    let dlon = abs(xs[b] - xs[a]).truncatingRemainder(dividingBy: 360)
                    step.lon = max(step.lon, min(dlon, 360 - dlon))
                    step.lat = max(step.lat, abs(ys[b] - ys[a]))
                }
            }
        }
        return step
    }

    /// Makes a source renderable: a PNG is decoded into a pyramid (in memory when it fits
    /// `memoryBudget`, else spilled to `scratch`); a GDAL raster is opened per thread later.
    /// A PNG whose rows alone, as the pyramid keeps them while decoding, would take more than
    /// half of `memoryLimit` (the share PNG sources may hold) is refused before anything is
    /// allocated.
    static func prepare(_ info: SourceInfo, style: LayerStyle, memoryBudget: Int, memoryLimit: Int,
                        scratch: String, logger: Logger, drawings: RenderedPage.Drawings) throws(BuildError)
        -> (PreparedSource, SourcePyramid?) {
        switch info.kind {
        case let .raster(description) where description.drawsPages && description.transparency != .mask:
            // A GeoPDF: drawn once, when a thread first needs it, and read from the copy (which
            // holds the bands, not a mask band: a page with one is read per thread as before).
            let page = RenderedPage(description, scratch: scratch, logger: logger, drawings: drawings)
            return (PreparedSource(info, style: style) { () throws(SourceReaderError) in try GDALWindowReader(try page.description()) }, nil)
        case let .raster(description):
            return (PreparedSource(info, style: style) { () throws(SourceReaderError) in try GDALWindowReader(description) }, nil)
        case .png:
            // The pyramid holds about four full-width RGBA rows at once (two a level, halving).
            let rows = info.width.multipliedReportingOverflow(by: 16)
            guard !rows.overflow, rows.partialValue <= memoryLimit / 2 else {
                throw .pngRowsTooWide(path: info.path, width: info.width, decodeBytes: rows.overflow ? Int.max : rows.partialValue,
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
