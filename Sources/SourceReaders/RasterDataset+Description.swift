import CGDAL
import Foundation

// Reading a raster's header into a `RasterDescription`.

extension RasterDataset {
    /// Reads the header: size, georeference, CRS, band layout, transparency, overviews, and for
    /// non-8-bit bands the range to scale (`options.scale`, else the bands' minimum and maximum;
    /// none when not `options.forDrawing`).
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
        let transparency = try transparency(
            layout: layout, bands: bands.map { $0! }, colourBands: colourBands,
            options: options)
        let palette = layout.isPalette ? Self.colourTable(bands[0]!) : []
        var scale: (min: Double, max: Double)?
        var nothingToDraw = false
        // Fewer than 8 bits a sample (a TIFF's NBITS, e.g. a 4-bit gray scan): widened to 8 bits
        // as it is read (`RasterDescription.bitsPerSample`), unless `options.scale` maps it.
        let bits = type == GDT_Byte && !layout.isPalette ? Self.bitsPerSample(bands[0]!) : nil
        // Signed bytes typed Byte (GDAL 3.6's PIXELTYPE=SIGNEDBYTE) are scaled as 16-bit bands are.
        let signedBytes = type == GDT_Byte && !layout.isPalette && Self.holdsSignedBytes(bands[0]!)
        var unused = [IgnoredReadOption]()
        if !options.forDrawing, options.scale == nil {
            // Values read as they are: no range to scale.
        } else if type != GDT_Byte || signedBytes || (bits != nil && options.scale != nil) {
            if let given = options.scale {
                scale = given
            } else if let range = try sampleRange(
                bands.prefix(colourBands).map { $0! }, transparency: transparency, signedBytes: signedBytes, options: options)
            {
                scale = range
            } else {
                // Every pixel nodata or NaN (an empty sheet of a DEM series): transparent whatever
                // the range, and left out of the layer's joint one.
                scale = (0, 1)
                nothingToDraw = true
            }
        } else if options.scale != nil {
            unused.append(.scaleOn8Bit(palette: layout.isPalette))
        }
        let driver = GDALGetDatasetDriver(handle).flatMap { GDALGetDriverShortName($0) }.map { String(cString: $0) } ?? "?"
        var description = RasterDescription(
            path: path, openOptions: openOptions, driver: driver, width: width, height: height,
            layout: layout, dataType: typeName, bands: selected, georeferencing: georeferencing,
            crs: crs, crsAssumed: assumed, transparency: transparency, palette: palette,
            scale: scale, overviews: overviews(bands: bands.map { $0! }))
        if scale == nil { description.bitsPerSample = bits }
        description.signedBytes = signedBytes
        description.nothingToDraw = nothingToDraw
        description.unusedOptions = unused
        description.companionFiles = companionFiles()
        if layout.hasAlpha, type == GDT_Byte { description.alphaBitsPerSample = Self.bitsPerSample(bands[colourBands]!) }
        try readNeatline(into: &description, georeferencing: georeferencing)
        return description
    }

    /// A palette band's colour table as 256 RGBA entries (missing entries transparent black).
    private static func colourTable(_ band: GDALRasterBandH) -> [UInt8] {
        guard let table = GDALGetRasterColorTable(band) else { return [] }
        var palette = [UInt8](repeating: 0, count: 256 * 4)
        for i in 0..<min(256, Int(GDALGetColorEntryCount(table))) {
            guard let e = GDALGetColorEntry(table, Int32(i))?.pointee else { continue }
            let c = [e.c1, e.c2, e.c3, e.c4].map { UInt8(clamping: $0) }
            palette.replaceSubrange(i * 4..<(i * 4 + 4), with: c)
        }
        return palette
    }

    /// The colour bands' joint minimum and maximum, nodata left out (the given values, as the
    /// file's own nodata is); nil when every pixel is nodata or NaN. A flat band gets a range of 1.
    private func sampleRange(
        _ colourBands: [GDALRasterBandH], transparency: Transparency, signedBytes: Bool, options: ReadOptions
    ) throws(SourceReaderError) -> (min: Double, max: Double)? {
        var lo = Double.infinity, hi = -Double.infinity
        var given = [Double?](repeating: nil, count: colourBands.count)
        if options.nodata != nil, let values = transparency.nodataValues { given = values.map { $0 } }
        for (b, band) in colourBands.enumerated() {
            guard let range = try BandRange.of(band, path: path, nodata: given[b], signedBytes: signedBytes) else { continue }
            lo = min(lo, range.min)
            hi = max(hi, range.max)
        }
        guard lo.isFinite, hi.isFinite else { return nil }
        return (lo, hi > lo ? hi : lo + 1)
    }

    /// A geospatial PDF's neatline (and a raster converted from one), in the georeference's coordinates.
    private func readNeatline(into description: inout RasterDescription, georeferencing: Georeferencing) throws(SourceReaderError) {
        guard let item = GDALGetMetadataItem(handle, "NEATLINE", nil).map({ String(cString: $0) }), !item.isEmpty else { return }
        switch Neatline.read(
            wkt: item, locator: try PixelGeolocator(georeferencing, path: path),
            affine: georeferencing.affine != nil, width: width, height: height)
        {
        case let .cuts(neatline): description.neatline = neatline
        case .cutsNothing: break
        case .offTheRaster: description.neatlineOffTheRaster = true
        }
    }
}
