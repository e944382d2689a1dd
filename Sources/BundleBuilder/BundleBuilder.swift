import Foundation
import Logging
import Raster
import SourceReaders
import Synchronization
import TileGeometry
import TileStore

/// Turns georeferenced source images into an MBTiles region bundle.
public struct BundleBuilder: Sendable {
    public let options: BuildOptions
    private let logger: Logger

    public init(options: BuildOptions, logger: Logger = Logger(label: "trailmap.build")) {
        self.options = options
        self.logger = logger
    }

    /// The builder's version, stored as `trailmap:builder`.
    public static let version = "trailmap-builder 0.2.0"

    /// Above this many tiles a build is refused as a likely mistake in the zoom range.
    public static let maxTiles = 200_000_000

    /// What a checked build will do: its sources (in drawing order, with their layers), its zoom
    /// bands, its extent and the tiles each band considers.
    struct Plan {
        var sources: [SourceInfo]
        /// The layer of each source.
        var layerOf: [Int]
        var bands: [ZoomBand]
        var bounds: GeoBounds
        /// Per band, its zooms' tile ranges (over the band's sources, inside the region).
        var ranges: [[TileRange]]
        var total: Int { ranges.joined().reduce(0) { $0 + $1.count } }
    }

    /// Checks everything that can be checked without writing: options and layers, every
    /// source's header and georeference, the zoom range, the output folder.
    func plan() throws(BuildError) -> Plan {
        try options.validate()
        var infos = [SourceInfo](), layerOf = [Int]()
        for (l, layer) in options.layers.enumerated() {
            let paths = try SourceList.expand(layer.sources)
            let read = layer.readOptions(over: options.read)
            for path in paths {
                let info = try SourceLoader.inspect(path, options: read)
                logger.debug("layer \(layer.name): source \(infos.count + 1) \(path): \(info.summary)")
                infos.append(info)
                layerOf.append(l)
            }
        }
        var union = infos[0].bounds
        for info in infos.dropFirst() { union = union.union(info.bounds) }
        if let region = options.clipBounds {
            for (i, info) in infos.enumerated() where info.bounds.intersection(region) == nil {
                throw .sourceOutsideRegion(path: info.path, layer: options.layers[layerOf[i]].name, bounds: region)
            }
            union = union.intersection(region) ?? region
        }
        guard let bounds = union.clippedToMercator else {
            throw .outsideMercator(path: infos[0].path, bounds: union)
        }
        let bands = ZoomBand.bands(layers: options.layers, build: options.minZoom...options.maxZoom)
        var ranges = [[TileRange]]()
        for band in bands {
            var extent: GeoBounds?
            for (i, info) in infos.enumerated() where band.layers.contains(layerOf[i]) {
                extent = extent.map { $0.union(info.bounds) } ?? info.bounds
            }
            let clipped = extent.flatMap { $0.intersection(bounds) } ?? bounds
            ranges.append(band.zooms.map { TileRange(bounds: clipped, zoom: $0) })
        }
        let plan = Plan(sources: infos, layerOf: layerOf, bands: bands, bounds: bounds, ranges: ranges)
        guard plan.total <= BundleBuilder.maxTiles else { throw .tooManyTiles(count: plan.total, maxZoom: options.maxZoom) }
        try checkOutput()
        return plan
    }

    private func checkOutput() throws(BuildError) {
        do { try BundleWriter.checkDestination(options.output) } catch { throw .store(error) }
    }

    /// Runs the build. `progress` is called from the writer thread about every 100 ms.
    public func build(progress: @escaping @Sendable (BuildProgress) -> Void = { _ in }) throws(BuildError) -> BuildReport {
        let start = Date()
        let plan = try plan()
        let infos = plan.sources
        let total = plan.total
        logger.info("building \(options.output): \(infos.count) source(s) in \(options.layers.count) layer(s), zoom \(options.minZoom)-\(options.maxZoom), \(total) tiles to consider")

        // PNG sources are decoded up front: half the memory limit may hold their pixels, the rest is
        // for rendering threads. GDAL sources are read window by window while rendering.
        var budget = options.memoryLimit / 2
        GDALEnvironment.setCacheBytes(options.gdalCacheBytes)
        var sources = [PreparedSource]()
        var pyramids = [SourcePyramid]()
        let scratch = options.scratchDirectory ?? URL(fileURLWithPath: options.output).deletingLastPathComponent().path
        for (i, info) in infos.enumerated() {
            progress(BuildProgress(phase: .decoding, done: i, total: infos.count, stored: 0, elapsed: Date().timeIntervalSince(start)))
            let layer = options.layers[plan.layerOf[i]]
            let style = LayerStyle(resampling: layer.resampling ?? options.resampling, opacity: layer.opacity)
            let (source, pyramid) = try SourceLoader.prepare(info, style: style, memoryBudget: budget, scratch: scratch)
            if let pyramid {
                if !pyramid.isFileBacked { budget -= pyramid.byteCount }
                logger.debug("decoded \(info.path) \(info.width)x\(info.height) \(pyramid.isFileBacked ? "spilled to disk" : "in memory")")
                pyramids.append(pyramid)
            }
            sources.append(source)
        }

        if options.renderThreads < options.threads {
            logger.notice("\(options.renderThreads) rendering threads instead of \(options.threads): that is what --memory-limit leaves room for")
        }
        let writer: BundleWriter
        do { writer = try BundleWriter(path: options.output) } catch { throw .store(error) }
        let renderStart = Date()
        var before = 0
        for (b, band) in plan.bands.enumerated() {
            let mine = sources.indices.filter { band.layers.contains(plan.layerOf[$0]) }.map { sources[$0] }
            if plan.bands.count > 1 {
                logger.info("zooms \(band.zooms.lowerBound)-\(band.zooms.upperBound): layers \(band.layers.map { options.layers[$0].name }.joined(separator: ", ")), \(mine.count) source(s)")
            }
            let offset = before
            let outcome = TileRendering(ranges: plan.ranges[b], zooms: band.zooms, sources: mine, options: options)
                .run(writer: writer) { done, stored in
                    progress(BuildProgress(phase: .rendering, done: offset + done, total: total, stored: stored,
                                           elapsed: Date().timeIntervalSince(renderStart)))
                }
            if let failure = outcome {
                writer.abandon()
                throw failure
            }
            before += plan.ranges[b].reduce(0) { $0 + $1.count }
        }
        progress(BuildProgress(phase: .finishing, done: total, total: total, stored: writer.stats.tiles,
                               elapsed: Date().timeIntervalSince(renderStart)))
        let stats: BundleWriteStats
        do { stats = try writer.finish(metadata: metadata(plan)) } catch { throw .store(error) }
        return BuildReport(output: options.output, tilesConsidered: total, tilesStored: stats.tiles,
                           uniqueImages: stats.uniqueImages, bytesStored: stats.storedBytes, tileBytes: stats.tileBytes,
                           tilesPerZoom: stats.tilesPerZoom, seconds: Date().timeIntervalSince(start),
                           spilledSources: pyramids.filter(\.isFileBacked).count)
    }

    /// The layers as the bundle records them: zooms resolved, sources by file name.
    func recordedLayers(_ plan: Plan) -> [BundleLayer] {
        options.layers.enumerated().map { l, layer in
            let z = layer.zooms(inBuild: options.minZoom...options.maxZoom)
            let names = plan.sources.indices.filter { plan.layerOf[$0] == l }
                .map { URL(fileURLWithPath: plan.sources[$0].path).lastPathComponent }
            return BundleLayer(name: layer.name, title: layer.title, kind: layer.kind, minzoom: z.lowerBound,
                               maxzoom: z.upperBound, sources: names)
        }
    }

    private func metadata(_ plan: Plan) -> BundleMetadata {
        let bounds = plan.bounds, infos = plan.sources
        var meta = BundleMetadata(name: options.name, bounds: bounds, minZoom: options.minZoom, maxZoom: options.maxZoom)
        let c = bounds.center
        meta.center = (c.lon, c.lat, min(options.maxZoom, max(options.minZoom, (options.minZoom + options.maxZoom) / 2)))
        meta.description = options.description.isEmpty ? "\(options.name) trail map" : options.description
        meta.attribution = options.attribution
        meta.version = options.version
        let file = URL(fileURLWithPath: options.output).deletingPathExtension().lastPathComponent
        meta.extra["trailmap:region"] = options.regionID ?? file
        meta.extra["trailmap:builder"] = BundleBuilder.version
        meta.extra["trailmap:sources"] = infos.map { URL(fileURLWithPath: $0.path).lastPathComponent }.joined(separator: ",")
        meta.extra["trailmap:resampling"] = options.resampling.rawValue
        meta.extra["trailmap:tilesize"] = String(options.tileSize)
        meta.format = options.format.rawValue
        if options.recordsLayers { meta.extra[BundleLayer.metadataKey] = BundleLayer.encode(recordedLayers(plan)) }
        return meta
    }
}
