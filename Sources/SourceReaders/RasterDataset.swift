import CGDAL
import Foundation

/// One open GDAL raster. Not thread-safe (GDAL datasets are not): each rendering thread opens its
/// own, and the builder bounds how many are open at once.
public final class RasterDataset {
    public let path: String
    let handle: GDALDatasetH
    private var floats: [Float] = []
    private var doubles: [Double] = []
    private var bytes: [UInt8] = []

    /// The open options the raster was opened with (`KEY=VALUE`, GDAL's `-oo`).
    public let openOptions: [String]

    /// Opens `path` read-only as a raster, with GDAL open options (`KEY=VALUE`, e.g. `DPI=300`
    /// for a GeoPDF); an option the file's driver does not know is an error, unless
    /// `checkingOptions` is false (a source already inspected with the same options). With
    /// `file`, that file is opened in its place (a page `path` rendered once, `RenderedPage`),
    /// and errors still name `path`.
    public init(path: String, openOptions: [String] = [], checkingOptions: Bool = true,
                file: String? = nil) throws(SourceReaderError) {
        GDALEnvironment.prepare()
        GDALEnvironment.resetError()
        var list: [UnsafeMutablePointer<CChar>?] = openOptions.map { strdup($0) } + [nil]
        defer { for p in list { free(p) } }
        let (opened, warnings) = GDALEnvironment.collectingWarnings(when: checkingOptions && !openOptions.isEmpty) {
            list.withUnsafeMutableBufferPointer { options in
                options.baseAddress!.withMemoryRebound(to: UnsafePointer<CChar>?.self, capacity: options.count) { o in
                    GDALOpenEx(file ?? path, UInt32(GDAL_OF_RASTER | GDAL_OF_READONLY), nil, openOptions.isEmpty ? nil : o, nil)
                }
            }
        }
        guard let h = opened else {
            throw Self.openFailure(path: path, file: file ?? path)
        }
        // A value the driver does not take (DPI=abc, DPI=0 for a PDF) is only a GDAL warning,
        // and the driver's default is used: an error here.
        for option in openOptions {
            let key = String(option.prefix { $0 != "=" })
            if let warning = warnings.first(where: { $0.uppercased().contains(key.uppercased()) }) {
                GDALClose(h)
                throw .cannotOpen(path: path, reason: "open option \(option): \(warning)")
            }
        }
        // GDAL at most warns of an open option its driver does not know: check each against the
        // driver's list of open options.
        if checkingOptions, let unknown = Self.unknownOpenOption(openOptions, dataset: h) {
            let driver = GDALGetDatasetDriver(h).flatMap { GDALGetDriverShortName($0) }.map { String(cString: $0) } ?? "?"
            GDALClose(h)
            throw .cannotOpen(path: path, reason: "driver \(driver) does not support open option \(unknown)")
        }
        self.path = path
        self.openOptions = openOptions
        handle = h
    }

    deinit { GDALClose(handle) }

    /// Why GDAL opened no raster (`path` named, `file` opened): its message, or the system's when
    /// the file itself cannot be opened for want of file descriptors (GDAL then says only that no
    /// driver reads it).
    static func openFailure(path: String, file: String) -> SourceReaderError {
        let message = GDALEnvironment.lastError(or: "not a raster format GDAL reads")
        guard !file.hasPrefix("/vsi") else { return .cannotOpen(path: path, reason: message) }
        let fd = open(file, O_RDONLY | O_CLOEXEC)
        if fd >= 0 {
            close(fd)
            return .cannotOpen(path: path, reason: message)
        }
        guard errno == EMFILE || errno == ENFILE else { return .cannotOpen(path: path, reason: message) }
        return .tooManyOpenFiles(path: path, reason: String(cString: strerror(errno)))
    }

    /// The first key of `options` (`KEY=VALUE`) missing from the dataset's driver's open-option list.
    private static func unknownOpenOption(_ options: [String], dataset: GDALDatasetH) -> String? {
        guard !options.isEmpty else { return nil }
        let list = GDALGetDatasetDriver(dataset)
            .flatMap { GDALGetMetadataItem(UnsafeMutableRawPointer($0), "DMD_OPENOPTIONLIST", nil) }
            .map { String(cString: $0).uppercased() } ?? ""
        for option in options {
            let key = String(option.prefix { $0 != "=" }).uppercased()
            if !list.contains("NAME='\(key)'") && !list.contains("NAME=\"\(key)\"") { return key }
        }
        return nil
    }

    public var width: Int { Int(GDALGetRasterXSize(handle)) }
    public var height: Int { Int(GDALGetRasterYSize(handle)) }

    /// Reads the header: size, georeference, CRS, band layout, transparency, overviews, and for
    /// non-8-bit bands the range to scale (`options.scale`, else the bands' minimum and maximum).
    public func describe(options: ReadOptions) throws(SourceReaderError) -> RasterDescription {
        guard width > 0, height > 0 else { throw .cannotOpen(path: path, reason: "the raster has no pixels") }
        let bandCount = Int(GDALGetRasterCount(handle))
        guard bandCount > 0 else {
            // A container of several rasters (GeoPackage tables, netCDF or HDF variables).
            let names = subdatasetNames
            guard !names.isEmpty else { throw .unsupportedBands(path: path, detail: "no bands") }
            throw .containerOfRasters(path: path, names: names)
        }
        let all = (1...bandCount).map { GDALGetRasterBand(handle, Int32($0)) }
        guard all.allSatisfy({ $0 != nil }) else { throw .cannotOpen(path: path, reason: "a band cannot be read") }
        let (layout, selected) = try Self.layout(path: path, bands: all.map { $0! }, chosen: options.bands)
        let bands = selected.map { all[$0 - 1] }
        let type = GDALGetRasterDataType(bands[0])
        let typeName = String(cString: GDALGetDataTypeName(type))
        guard GDALDataTypeIsComplex(type) == 0, type != GDT_Unknown else {
            throw .unsupportedDataType(path: path, type: typeName)
        }
        for band in bands where GDALGetRasterDataType(band) != type {
            throw .unsupportedDataType(path: path, type: "bands of different types")
        }
        if layout.isPalette && type != GDT_Byte {
            throw .unsupportedDataType(path: path, type: "\(typeName) palette indices (8-bit only)")
        }

        let (georeferencing, crs, assumed) = try georeference(options: options)

        let colourBands = layout.hasAlpha ? bands.count - 1 : bands.count
        let transparency = try transparency(layout: layout, bands: bands.map { $0! }, colourBands: colourBands,
                                            options: options)
        var palette = [UInt8]()
        if layout.isPalette, let table = GDALGetRasterColorTable(bands[0]) {
            palette = [UInt8](repeating: 0, count: 256 * 4)
            for i in 0..<min(256, Int(GDALGetColorEntryCount(table))) {
                guard let e = GDALGetColorEntry(table, Int32(i))?.pointee else { continue }
                let c = [e.c1, e.c2, e.c3, e.c4].map { UInt8(clamping: $0) }
                palette.replaceSubrange(i * 4..<(i * 4 + 4), with: c)
            }
        }
        var scale: (min: Double, max: Double)?
        var nothingToDraw = false
        // Fewer than 8 bits a sample (a TIFF's NBITS, e.g. a 4-bit gray scan): widened to 8 bits
        // as it is read (`RasterDescription.bitsPerSample`), unless `options.scale` maps it.
        let bits = type == GDT_Byte && !layout.isPalette ? Self.bitsPerSample(bands[0]!) : nil
        // Signed bytes typed Byte (GDAL 3.6's PIXELTYPE=SIGNEDBYTE) are scaled as 16-bit bands are.
        let signedBytes = type == GDT_Byte && !layout.isPalette && Self.holdsSignedBytes(bands[0]!)
        var unused = [IgnoredReadOption]()
        if type != GDT_Byte || signedBytes || (bits != nil && options.scale != nil) {
            if let given = options.scale {
                scale = given
            } else {
                var lo = Double.infinity, hi = -Double.infinity
                // The given nodata values are left out of the range, as the file's own nodata is.
                var given = [Double?](repeating: nil, count: colourBands)
                if options.nodata != nil, let values = transparency.nodataValues { given = values.map { $0 } }
                for (b, band) in bands.prefix(colourBands).enumerated() {
                    guard let band, let range = try BandRange.of(band, path: path, nodata: given[b], signedBytes: signedBytes) else { continue }
                    lo = min(lo, range.min)
                    hi = max(hi, range.max)
                }
                // Every pixel nodata or NaN (an empty sheet of a DEM series): transparent whatever
                // the range, and left out of the layer's joint one.
                if lo.isFinite, hi.isFinite {
                    scale = (lo, hi > lo ? hi : lo + 1)
                } else {
                    scale = (0, 1)
                    nothingToDraw = true
                }
            }
        } else if options.scale != nil {
            unused.append(.scaleOn8Bit(palette: layout.isPalette))
        }
        let driver = GDALGetDatasetDriver(handle).flatMap { GDALGetDriverShortName($0) }.map { String(cString: $0) } ?? "?"
        var description = RasterDescription(path: path, openOptions: openOptions, driver: driver, width: width, height: height,
                                            layout: layout, dataType: typeName, bands: selected, georeferencing: georeferencing,
                                            crs: crs, crsAssumed: assumed, transparency: transparency, palette: palette,
                                            scale: scale, overviews: overviews(bands: bands.map { $0! }))
        if scale == nil { description.bitsPerSample = bits }
        description.signedBytes = signedBytes
        description.nothingToDraw = nothingToDraw
        description.unusedOptions = unused
        description.companionFiles = companionFiles()
        if layout.hasAlpha, type == GDT_Byte { description.alphaBitsPerSample = Self.bitsPerSample(bands[colourBands]!) }
        // A geospatial PDF's neatline (and a raster converted from one), in the georeference's coordinates.
        if let item = GDALGetMetadataItem(handle, "NEATLINE", nil).map({ String(cString: $0) }), !item.isEmpty {
            switch Neatline.read(wkt: item, locator: try PixelGeolocator(georeferencing, path: path),
                                 affine: georeferencing.affine != nil, width: width, height: height) {
            case let .cuts(neatline): description.neatline = neatline
            case .cutsNothing: break
            case .offTheRaster: description.neatlineOffTheRaster = true
            }
        }
        return description
    }

    /// GDAL's virtual file systems that read over a network.
    static let networkFileSystems = ["/vsicurl", "/vsis3", "/vsigs", "/vsiaz", "/vsiadls", "/vsioss", "/vsiswift", "/vsihdfs", "/vsiwebhdfs"]

    /// The files GDAL lists for the dataset other than the source itself (or its container).
    private func companionFiles() -> [String] {
        guard let list = GDALGetFileList(handle) else { return [] }
        defer { CSLDestroy(list) }
        let own = [path, GDALFiles.subdataset(path)?.file].compactMap { $0 }.map { URL(fileURLWithPath: $0).standardizedFileURL.path }
        var files = [String]()
        for i in 0..<Int(CSLCount(list)) {
            guard let item = list[i] else { continue }
            let file = String(cString: item)
            // Files behind a network file system (a VRT of remote COGs) are not stamped or hashed:
            // that would download them on every build.
            if Self.networkFileSystems.contains(where: { file.hasPrefix($0) }) { continue }
            let standard = file.hasPrefix("/vsi") ? file : URL(fileURLWithPath: file).standardizedFileURL.path
            if !own.contains(standard) && !files.contains(file) { files.append(file) }
        }
        return files
    }

    /// Values of `bits` bits a sample (0...2^bits - 1) to 0...255, as a PNG of that depth shows
    /// them; larger values (not in such a file) to 255. Made once for 1 to 7 bits.
    static func widening(_ bits: Int) -> [UInt8] { wideningTables[bits] }

    private static let wideningTables: [[UInt8]] = (0..<8).map { bits in
        let top = max(1, (1 << bits) - 1)
        return (0..<256).map { v in v >= top ? 255 : UInt8((Double(v) * 255 / Double(top)).rounded()) }
    }

    /// Whether an 8-bit band holds signed values (`PIXELTYPE=SIGNEDBYTE`, `IMAGE_STRUCTURE`
    /// domain: how GDAL before 3.7 types a GeoTIFF's signed 8-bit samples).
    private static func holdsSignedBytes(_ band: GDALRasterBandH) -> Bool {
        GDALGetMetadataItem(band, "PIXELTYPE", "IMAGE_STRUCTURE").map { String(cString: $0) } == "SIGNEDBYTE"
    }

    /// A band's bits a sample when fewer than 8 (GDAL's `NBITS` item, `IMAGE_STRUCTURE` domain).
    private static func bitsPerSample(_ band: GDALRasterBandH) -> Int? {
        guard let item = GDALGetMetadataItem(band, "NBITS", "IMAGE_STRUCTURE"), let n = Int(String(cString: item)),
              (1..<8).contains(n) else { return nil }
        return n
    }

    /// The layout and the bands it reads (1-based: colour bands, then alpha): `chosen` (`ReadOptions.bands`)
    /// when given, else by the band count, a last band counting as alpha only when GDAL says so
    /// (its colour interpretation, or the dataset's mask being an alpha band), as gdal2tiles
    /// decides. So a 4-band red, green, blue, near-infrared image (NAIP) is read as RGB.
    private static func layout(path: String, bands: [GDALRasterBandH],
                               chosen: [Int]?) throws(SourceReaderError) -> (BandLayout, [Int]) {
        let interp = bands.map { GDALGetRasterColorInterpretation($0) }
        let names = interp.map { String(cString: GDALGetColorInterpretationName($0)) }.joined(separator: ", ")
        let isPalette = { (i: Int) in interp[i - 1] == GCI_PaletteIndex && GDALGetRasterColorTable(bands[i - 1]) != nil }
        if let chosen {
            guard (1...4).contains(chosen.count) else {
                throw .bandChoiceCount(path: path, count: chosen.count)
            }
            for b in chosen where !(1...bands.count).contains(b) {
                throw .bandChoiceOutOfRange(path: path, band: b, bandCount: bands.count, names: names)
            }
            let layouts: [BandLayout] = [isPalette(chosen[0]) ? .palette : .gray, isPalette(chosen[0]) ? .paletteAlpha : .grayAlpha, .rgb, .rgba]
            return (layouts[chosen.count - 1], chosen)
        }
        let lastIsAlpha = interp.last == GCI_AlphaBand
            || GDALGetMaskFlags(bands[0]) & (GMF_ALPHA | GMF_PER_DATASET) == (GMF_ALPHA | GMF_PER_DATASET)
        switch bands.count {
        case 1:
            return (isPalette(1) ? .palette : .gray, [1])
        case 2:
            if isPalette(1) { return lastIsAlpha ? (.paletteAlpha, [1, 2]) : (.palette, [1]) }
            return lastIsAlpha ? (.grayAlpha, [1, 2]) : (.gray, [1])
        case 3:
            return (.rgb, [1, 2, 3])
        case 4:
            return lastIsAlpha ? (.rgba, [1, 2, 3, 4]) : (.rgb, [1, 2, 3])
        default:
            throw .tooManyBands(path: path, count: bands.count, names: names)
        }
    }

    private func transparency(layout: BandLayout, bands: [GDALRasterBandH], colourBands: Int,
                              options: ReadOptions) throws(SourceReaderError) -> Transparency {
        if let given = options.nodata {
            guard given.count == 1 || given.count == colourBands else {
                throw .nodataCount(path: path, given: given.count, colourBands: colourBands)
            }
            let values = given.count == 1 ? Array(repeating: given[0], count: colourBands) : given
            return layout.hasAlpha ? .alphaBandAndNodata(values) : .nodata(values)
        }
        if layout.hasAlpha { return .alphaBand }
        var values = [Double]()
        var any = false
        for band in bands.prefix(colourBands) {
            var has: Int32 = 0
            let v = GDALGetRasterNoDataValue(band, &has)
            values.append(has != 0 ? v : .nan)
            any = any || has != 0
        }
        if any { return .nodata(values) }
        // A per-dataset mask: an internal or .msk mask, or an alpha band the chosen bands leave out.
        let flags = GDALGetMaskFlags(bands[0])
        if flags & GMF_ALL_VALID == 0, flags & GMF_PER_DATASET != 0, flags & GMF_NODATA == 0 {
            return .mask
        }
        return .none
    }

    private func overviews(bands: [GDALRasterBandH]) -> [OverviewLevel] {
        let count = Int(bands.map { GDALGetOverviewCount($0) }.min() ?? 0)
        var levels = [OverviewLevel]()
        for i in 0..<count {
            guard let o = GDALGetOverview(bands[0], Int32(i)) else { continue }
            let w = Int(GDALGetRasterBandXSize(o)), h = Int(GDALGetRasterBandYSize(o))
            if w > 0, h > 0, w < width || h < height { levels.append(OverviewLevel(width: w, height: h, index: i)) }
        }
        return levels.sorted { $0.width > $1.width }
    }

    /// The names GDAL gives the rasters a container holds (SUBDATASET_n_NAME).
    private var subdatasetNames: [String] {
        guard let list = GDALGetMetadata(handle, "SUBDATASETS") else { return [] }
        var names = [String](), i = 0
        while let p = list[i] {
            let item = String(cString: p)
            if let eq = item.firstIndex(of: "="), item[..<eq].hasSuffix("_NAME") { names.append(String(item[item.index(after: eq)...])) }
            i += 1
        }
        return names
    }

    /// Whether GDAL found a world file beside the raster.
    private var hasWorldFile: Bool {
        guard let list = GDALGetFileList(handle) else { return false }
        defer { CSLDestroy(list) }
        var i = 0
        while let p = list[i] {
            let ext = URL(fileURLWithPath: String(cString: p)).pathExtension.lowercased()
            if ext == "wld" || (ext.count >= 3 && ext.count <= 4 && ext.hasSuffix("w") && ext != "raw") { return true }
            i += 1
        }
        return false
    }

    /// The raster's georeference (a geotransform, ground control points or RPCs, in GDAL's order
    /// of georeference sources: `.aux.xml`, the file, a world file) and its CRS: `options.crs`,
    /// else the declared one, else WGS 84 for a world file (`assumed` then).
    public func georeference(options: ReadOptions) throws(SourceReaderError)
        -> (georeferencing: Georeferencing, crs: SpatialReference, assumed: Bool) {
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
            crs = .wgs84   // RPCs map pixels to WGS 84 longitudes and latitudes, whatever `options.crs` says
        } else if let given = options.crs {
            crs = given
            assumed = true
        } else if let wkt = declaredCRS.map({ String(cString: $0) }), !wkt.isEmpty {
            crs = try SpatialReference(wkt: wkt)
        } else if hasWorldFile {
            crs = .wgs84   // world files say nothing of the CRS; TrailMap's default for them
            assumed = true
        } else {
            throw .noCRS(path: path)
        }

        return (georeferencing, crs, assumed)
    }

    /// Reads a window of full resolution (`level` 0) or of overview `level - 1` of
    /// `description.overviews` as straight-alpha RGBA into `out` (`width * height * 4` bytes).
    public func readRGBA(_ d: RasterDescription, level: Int, x0: Int, y0: Int, width w: Int, height h: Int,
                         into out: UnsafeMutablePointer<UInt8>) throws(SourceReaderError) {
        let n = w * h
        guard n > 0 else { return }
        var bands = [GDALRasterBandH]()
        for i in d.bands {
            guard var band = GDALGetRasterBand(handle, Int32(i)) else { throw .readFailed(path: path, reason: "band \(i) is missing") }
            if level > 0 {
                guard let o = GDALGetOverview(band, Int32(d.overviews[level - 1].index)) else {
                    throw .readFailed(path: path, reason: "overview \(level) of band \(i) is missing")
                }
                band = o
            }
            bands.append(band)
        }
        let colourBands = d.layout.hasAlpha ? bands.count - 1 : bands.count
        let eightBit = d.scale == nil
        var isNodata = [Bool]()
        if d.transparency.nodataValues != nil { isNodata = [Bool](repeating: true, count: n) }

        // Colour bands.
        let channels: [Int] = d.layout == .rgb || d.layout == .rgba ? [0, 1, 2] : [0]
        for (b, channel) in channels.enumerated() {
            if eightBit {
                try read(bands[b], x0, y0, w, h, into: out + channel, type: GDT_Byte, pixelSpace: 4)
                if let values = d.transparency.nodataValues, values[b].isFinite {
                    let v = values[b]
                    for i in 0..<n where isNodata[i] && Double(out[i * 4 + channel]) != v { isNodata[i] = false }
                } else if !isNodata.isEmpty {
                    for i in 0..<n { isNodata[i] = false }
                }
            } else if d.dataType == "Float64" {
                // Read as Doubles: values past Float's range (±3.4e38) keep their place in the scale.
                if doubles.count < n { doubles = [Double](repeating: 0, count: n) }
                try doubles.withUnsafeMutableBufferPointer { f throws(SourceReaderError) in
                    try read(bands[b], x0, y0, w, h, into: f.baseAddress!, type: GDT_Float64, pixelSpace: 8)
                    Self.scale(UnsafeBufferPointer(rebasing: f[0..<n]), d, band: b, channel: channel, into: out, isNodata: &isNodata)
                }
            } else {
                if floats.count < n { floats = [Float](repeating: 0, count: n) }
                try floats.withUnsafeMutableBufferPointer { f throws(SourceReaderError) in
                    try read(bands[b], x0, y0, w, h, into: f.baseAddress!, type: GDT_Float32, pixelSpace: 4)
                    if d.signedBytes {   // GDAL reads a SIGNEDBYTE band's values as 0...255
                        for i in 0..<n where f[i] >= 128 { f[i] -= 256 }
                    }
                    Self.scale(UnsafeBufferPointer(rebasing: f[0..<n]), d, band: b, channel: channel, into: out, isNodata: &isNodata)
                }
            }
        }
        if eightBit { for i in 0..<n { out[i * 4 + 3] = 255 } }
        if eightBit, let bits = d.bitsPerSample {
            let widen = Self.widening(bits)
            for i in 0..<n { for c in channels { out[i * 4 + c] = widen[Int(out[i * 4 + c])] } }
        }
        // Gray and palette fan out to RGB.
        switch d.layout {
        case .gray, .grayAlpha:
            for i in 0..<n {
                let g = out[i * 4]
                out[i * 4 + 1] = g
                out[i * 4 + 2] = g
            }
        case .palette, .paletteAlpha:
            d.palette.withUnsafeBufferPointer { pal in
                for i in 0..<n {
                    let p = Int(out[i * 4]) * 4
                    if pal.isEmpty { continue }
                    out[i * 4] = pal[p]
                    out[i * 4 + 1] = pal[p + 1]
                    out[i * 4 + 2] = pal[p + 2]
                    out[i * 4 + 3] = pal[p + 3]
                }
            }
        case .rgb, .rgba:
            break
        }
        // Transparency: the alpha band, then nodata values or the mask.
        if d.layout.hasAlpha {
            let alpha = bands[colourBands]
            if d.layout == .paletteAlpha {
                // The colour table's alpha times the band's.
                try multiplyAlpha(out, by: alpha, x0, y0, w, h, bits: d.alphaBitsPerSample)
            } else if eightBit || d.alphaBitsPerSample != nil {
                try read(alpha, x0, y0, w, h, into: out + 3, type: GDT_Byte, pixelSpace: 4)
                if let bits = d.alphaBitsPerSample {
                    let widen = Self.widening(bits)
                    for i in 0..<n { out[i * 4 + 3] = widen[Int(out[i * 4 + 3])] }
                }
            } else {
                if floats.count < n { floats = [Float](repeating: 0, count: n) }
                try floats.withUnsafeMutableBufferPointer { f throws(SourceReaderError) in
                    try read(alpha, x0, y0, w, h, into: f.baseAddress!, type: GDT_Float32, pixelSpace: 4)
                }
                // 16-bit alpha runs 0...65535; wider or floating-point alpha is taken as 0...255.
                let divisor: Float = d.dataType == "UInt16" || d.dataType == "Int16" ? 257 : 1
                for i in 0..<n where out[i * 4 + 3] != 0 {
                    out[i * 4 + 3] = UInt8(max(0, min(255, (floats[i] / divisor).rounded())))
                }
            }
        }
        switch d.transparency {
        case .none, .alphaBand:
            break
        case .nodata, .alphaBandAndNodata:
            for i in 0..<n where isNodata[i] { out[i * 4 + 3] = 0 }
        case .mask:
            guard let mask = GDALGetMaskBand(bands[0]) else { break }
            try multiplyAlpha(out, by: mask, x0, y0, w, h)
        }
        if let neatline = d.neatline {
            let s = d.scale(ofLevel: level)
            neatline.clip(out, x0: x0, y0: y0, width: w, height: h, scaleX: s.x, scaleY: s.y)
        }
    }

    /// Maps colour band `band`'s values from the description's scale to 0...255 into `channel` of
    /// the RGBA window, NaN transparent; clears `isNodata` (when not empty) where a value is not
    /// the band's nodata. The first band sets alpha.
    private static func scale<T: BinaryFloatingPoint>(_ values: UnsafeBufferPointer<T>, _ d: RasterDescription, band b: Int,
                                                      channel: Int, into out: UnsafeMutablePointer<UInt8>, isNodata: inout [Bool]) {
        // A range wider than the largest Double (a Float64 band from -1e308 to 1e308) is halved
        // first, which is exact: (v - lo) * k == (v/2 - lo/2) * (2k).
        var (lo, hi) = d.scale!
        let half: Double = (hi - lo).isFinite ? 1 : 0.5
        (lo, hi) = (lo * half, hi * half)
        let k = 255 / (hi - lo)
        let nodataValue = d.transparency.nodataValues?[b] ?? .nan
        // A Float32 band's nodata is compared as a Float, as its pixels are (`FloatNodata`).
        let nodataFloat = FloatNodata(nodataValue), single = T.self == Float.self
        for i in 0..<values.count {
            let raw = Double(values[i]), v = raw * half
            if !isNodata.isEmpty && !v.isNaN
                && (!nodataValue.isFinite || !(single ? nodataFloat.matches(Float(raw)) : raw == nodataValue)) {
                isNodata[i] = false
            }
            out[i * 4 + channel] = v.isNaN ? 0 : UInt8(max(0, min(255, ((v - lo) * k).rounded())))
            if v.isNaN { out[i * 4 + 3] = 0 } else if b == 0 { out[i * 4 + 3] = 255 }
        }
    }

    /// Multiplies the window's alpha by an 8-bit band's values (an alpha band, a mask) read over it;
    /// a band of fewer `bits` a sample is widened first.
    private func multiplyAlpha(_ out: UnsafeMutablePointer<UInt8>, by band: GDALRasterBandH,
                               _ x0: Int, _ y0: Int, _ w: Int, _ h: Int, bits: Int? = nil) throws(SourceReaderError) {
        let n = w * h
        if bytes.count < n { bytes = [UInt8](repeating: 0, count: n) }
        try bytes.withUnsafeMutableBufferPointer { m throws(SourceReaderError) in
            try read(band, x0, y0, w, h, into: m.baseAddress!, type: GDT_Byte, pixelSpace: 1)
        }
        if let bits {
            let widen = Self.widening(bits)
            for i in 0..<n { bytes[i] = widen[Int(bytes[i])] }
        }
        for i in 0..<n where bytes[i] != 255 { out[i * 4 + 3] = UInt8(Int(out[i * 4 + 3]) * Int(bytes[i]) / 255) }
    }

    private func read<T>(_ band: GDALRasterBandH, _ x0: Int, _ y0: Int, _ w: Int, _ h: Int,
                         into buffer: UnsafeMutablePointer<T>, type: GDALDataType, pixelSpace: Int) throws(SourceReaderError) {
        GDALEnvironment.resetError()
        let err = GDALRasterIO(band, GF_Read, Int32(x0), Int32(y0), Int32(w), Int32(h), buffer, Int32(w), Int32(h),
                               type, Int32(pixelSpace), Int32(pixelSpace * w))
        guard err == CE_None else {
            throw .readFailed(path: path, reason: GDALEnvironment.lastError(or: "GDAL could not read a block (truncated or corrupt file?)"))
        }
    }
}
