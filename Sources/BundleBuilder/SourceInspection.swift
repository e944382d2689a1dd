import Foundation
import Logging
import SourceReaders
import TileGeometry
import TileStore

extension BundleBuilder {
    /// The sources as read, every layer's, in drawing order.
    struct InspectedSources {
        var sources: [PlannedSource]
        /// Per layer without a given scale range, the joint range of its non-8-bit sources (`BuildPlan.sharedScales`).
        var sharedScales: [String: [Double]]
    }

    /// Reads every source's header and georeference.
    func inspectSources() throws(BuildError) -> InspectedSources {
        var sources = [PlannedSource](), sharedScales = [String: [Double]]()
        for (l, layer) in options.layers.enumerated() {
            let paths = try SourceList.expand(layer.sources)
            let read = layer.readOptions(over: options.read)
            var layerInfos = [SourceInfo]()
            var unused = [(option: IgnoredReadOption, paths: [String])]() // in the order first met
            for path in paths {
                let info = try SourceLoader.inspect(path, options: read)
                logger.debug("layer \(layer.name): source \(sources.count + layerInfos.count + 1) \(path): \(info.summary)")
                if case let .raster(d) = info.kind, d.nothingToDraw {
                    logger.warning("\(path): every pixel is nodata or NaN, so it draws nothing")
                }
                if case let .raster(d) = info.kind, d.neatlineOffTheRaster {
                    logger.warning(
                        """
                        \(path): its NEATLINE metadata lies off the raster, so it is not applied and the collar is drawn (gdalwarp copies \
                        a PDF's neatline into a raster of another CRS or extent; warp with -nomd, or cut the collar with -cutline)
                        """
                    )
                }
                for option in info.unusedOptions(scaleGiven: read.scale != nil) {
                    if let i = unused.firstIndex(where: { $0.option == option }) {
                        unused[i].paths.append(path)
                    } else {
                        unused.append((option, [path]))
                    }
                }
                layerInfos.append(info)
            }
            for (option, paths) in unused {
                note(.optionNotApplied(option, path: paths[0], others: paths.count - 1))
            }
            if read.scale == nil, let range = SourceLoader.sharedScale(layerInfos), layerInfos.count > 1 {
                note(.sharedScale(layer: layer.name, min: range.min, max: range.max))
                layerInfos = layerInfos.map { $0.scaled(from: range) }
                sharedScales[layer.name] = [range.min, range.max]
            }
            sources += layerInfos.map { PlannedSource(info: $0, layer: l) }
        }
        return skippingSourcesOutsideClip(InspectedSources(sources: sources, sharedScales: sharedScales))
    }

    /// `sources` without those wholly outside `clipBounds` (one warning names them), unless every
    /// source is: then none is dropped, and planning says the region holds nothing.
    func skippingSourcesOutsideClip(_ sources: InspectedSources) -> InspectedSources {
        guard let clip = options.clipBounds else { return sources }
        let inside = sources.sources.indices.filter { i in sources.sources[i].info.parts.contains { $0.intersection(clip) != nil } }
        guard !inside.isEmpty, inside.count < sources.sources.count else { return sources }
        let skipped = sources.sources.indices.filter { !inside.contains($0) }.map { sources.sources[$0].info.path }
        let others = skipped.count > 1 ? " and \(skipped.count - 1) other source(s)" : ""
        logger.warning("\(skipped[0])\(others) skipped: wholly outside the region's bounds \(clip)")
        var kept = sources
        kept.sources = inside.map { sources.sources[$0] }
        return kept
    }

    /// The same build with the zooms `SourceZooms` takes from `sources` (checked again with
    /// them). An update takes the zooms of the bundle it updates instead: new sources may hold
    /// finer pixels or widen the region, and a build of other zooms is no update of it.
    func withZooms(from sources: InspectedSources) throws(BuildError) -> BundleBuilder {
        let from = options.zoomsFromSources
        var resolved = options
        resolved.zoomsFromSources = []
        if let base = options.update, let kept = Self.zooms(ofBundle: base) {
            if from.contains(.min) { resolved.minZoom = kept.lowerBound }
            if from.contains(.max) { resolved.maxZoom = kept.upperBound }
            logger.notice("zooms \(resolved.minZoom)-\(resolved.maxZoom), those of \(base), the bundle updated")
            try resolved.validate()
            return BundleBuilder(options: resolved, logger: logger)
        }
        let ranged = options.layers.compactMap(\.zooms)
        let unranged = Set(options.layers.indices.filter { options.layers[$0].zooms == nil })
        let finest = sources.sources.filter { unranged.contains($0.layer) }.compactMap(\.info.mercatorPixelSize).min()
        // The region's width the narrow way round: sources either side of the antimeridian, whose
        // bounds span every longitude, are as wide as their parts together.
        let bounds = try BuildPlan.region(sources.sources, options: options), box = bounds.mercator
        let parts = sources.sources.flatMap(\.info.parts).compactMap { $0.intersection(bounds) }
        let width = Antimeridian.spannedLongitudes(parts).map { $0 / 360 * ZoomChoice.worldWidth } ?? (box.maxX - box.minX)
        let region = (width: min(width, box.maxX - box.minX), height: box.maxY - box.minY)
        let zooms = ZoomChoice.range(
            lowest: from.contains(.min) ? ranged.map(\.lowerBound).min() : options.minZoom,
            highest: from.contains(.max) ? ranged.map(\.upperBound).max() : options.maxZoom,
            from: from, finest: finest, region: region, tileSize: options.tileSize)
        resolved.minZoom = zooms.min
        resolved.maxZoom = zooms.max
        let pixel = finest.map { String(format: "%.3g m", $0) } ?? "unknown"
        logger.notice(
            """
            zooms \(zooms.min)-\(zooms.max), from the sources: the finest pixel is \(pixel) in Web Mercator, and the region fits one tile \
            at zoom \(ZoomChoice.zoom(fitting: region.width, region.height))
            """
        )
        try resolved.validate()
        return BundleBuilder(options: resolved, logger: logger)
    }

    /// The zooms a bundle's metadata gives, nil when it cannot be read (the update then fails
    /// opening it, with the reason).
    static func zooms(ofBundle path: String) -> ClosedRange<Int>? {
        guard let pairs = try? BundleReader(path: path).metadataPairs(),
            let lo = pairs["minzoom"].flatMap({ Int($0) }), let hi = pairs["maxzoom"].flatMap({ Int($0) }), lo <= hi
        else { return nil }
        return lo...hi
    }
}
