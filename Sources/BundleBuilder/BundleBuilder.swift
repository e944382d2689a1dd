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

    /// Checks everything that can be checked without writing: options, every source's header and
    /// georeference, the zoom range, the output folder. Returns the sources and the tile ranges.
    public func plan() throws(BuildError) -> (sources: [SourceInfo], ranges: [TileRange], bounds: GeoBounds) {
        try options.validate()
        let paths = try SourceList.expand(options.sources)
        var infos = [SourceInfo]()
        for (i, path) in paths.enumerated() {
            let info = try SourceLoader.inspect(path, options: options.read)
            logger.debug("source \(i + 1)/\(paths.count) \(path): \(info.summary)")
            infos.append(info)
        }
        var union = infos[0].bounds
        for info in infos.dropFirst() { union = union.union(info.bounds) }
        guard let bounds = union.clippedToMercator else {
            throw .outsideMercator(path: paths[0], bounds: union)
        }
        let ranges = (options.minZoom...options.maxZoom).map { TileRange(bounds: bounds, zoom: $0) }
        let total = ranges.reduce(0) { $0 + $1.count }
        guard total <= BundleBuilder.maxTiles else { throw .tooManyTiles(count: total, maxZoom: options.maxZoom) }
        try checkOutput()
        return (infos, ranges, bounds)
    }

    private func checkOutput() throws(BuildError) {
        do { try BundleWriter.checkDestination(options.output) } catch { throw .store(error) }
    }

    /// Runs the build. `progress` is called from the writer thread about every 100 ms.
    public func build(progress: @escaping @Sendable (BuildProgress) -> Void = { _ in }) throws(BuildError) -> BuildReport {
        let start = Date()
        let (infos, ranges, bounds) = try plan()
        let total = ranges.reduce(0) { $0 + $1.count }
        logger.info("building \(options.output): \(infos.count) source(s), zoom \(options.minZoom)-\(options.maxZoom), \(total) tiles to consider")

        // PNG sources are decoded up front: half the memory limit may hold their pixels, the rest is
        // for rendering threads. GDAL sources are read window by window while rendering.
        var budget = options.memoryLimit / 2
        GDALEnvironment.setCacheBytes(options.gdalCacheBytes)
        var sources = [PreparedSource]()
        var pyramids = [SourcePyramid]()
        let scratch = options.scratchDirectory ?? URL(fileURLWithPath: options.output).deletingLastPathComponent().path
        for (i, info) in infos.enumerated() {
            progress(BuildProgress(phase: .decoding, done: i, total: infos.count, stored: 0, elapsed: Date().timeIntervalSince(start)))
            let (source, pyramid) = try SourceLoader.prepare(info, memoryBudget: budget, scratch: scratch)
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
        let outcome = TileRendering(ranges: ranges, sources: sources, options: options)
            .run(writer: writer) { done, stored in
                progress(BuildProgress(phase: .rendering, done: done, total: total, stored: stored,
                                       elapsed: Date().timeIntervalSince(renderStart)))
            }
        if let failure = outcome {
            writer.abandon()
            throw failure
        }
        progress(BuildProgress(phase: .finishing, done: total, total: total, stored: writer.stats.tiles,
                               elapsed: Date().timeIntervalSince(renderStart)))
        let stats: BundleWriteStats
        do { stats = try writer.finish(metadata: metadata(bounds: bounds, infos: infos)) } catch { throw .store(error) }
        return BuildReport(output: options.output, tilesConsidered: total, tilesStored: stats.tiles,
                           uniqueImages: stats.uniqueImages, bytesStored: stats.storedBytes, tileBytes: stats.tileBytes,
                           tilesPerZoom: stats.tilesPerZoom, seconds: Date().timeIntervalSince(start),
                           spilledSources: pyramids.filter(\.isFileBacked).count)
    }

    private func metadata(bounds: GeoBounds, infos: [SourceInfo]) -> BundleMetadata {
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
        return meta
    }
}
