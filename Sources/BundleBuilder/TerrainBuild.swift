import Crypto
import Foundation
import Logging
import Raster
import SourceReaders
import Synchronization
import Terrain
import TileGeometry
import TileStore

/// A build of a terrain layer: every zoom's tiles computed from the DEMs warped onto that zoom's
/// own tile grid (GDAL's warper, averaging where the tiles' pixels are coarser than the DEM's,
/// bilinear where finer), then drawn (`TerrainDrawing`) or encoded as terrain tiles. Trails,
/// when the build has them, are drawn over drawn layers and stored beside the tiles.
struct TerrainBuild {
    let options: BuildOptions
    let layer: TerrainLayer
    let logger: Logger

    func run(progress: @escaping @Sendable (BuildProgress) -> Void) throws(BuildError) -> BuildReport {
        let start = Date()
        try checkOptions()
        let sources = try TerrainSources.read(layer, logger: logger)
        let plan = try TerrainPlan(options: options, layer: layer, sources: sources)
        let trails = try layer.encoding == nil ? options.trails.map(PreparedTrails.read) : nil
        // Before anything is written: a contour interval too fine for a zoom's tiles.
        try TerrainContourCheck(layer: layer, sources: sources).check(zooms: plan.zooms, bounds: plan.bounds)
        logger.info(
            """
            building \(options.output): \(layer.products) from \(sources.dems.count) DEM(s), zoom \
            \(plan.zooms.lowerBound)-\(plan.zooms.upperBound), \(plan.total) tiles to consider
            """
        )
        let writer: BundleWriter
        do {
            (writer, _) = try BundleWriter.resumable(path: options.output, fingerprint: fingerprint(sources, zooms: plan.zooms))
        } catch { throw .store(error) }
        do throws(BuildError) {
            try render(plan, sources: sources, trails: trails, into: writer) { done, stored in
                progress(
                    BuildProgress(
                        phase: .rendering, done: done, total: plan.total, stored: stored, elapsed: Date().timeIntervalSince(start)))
            }
            progress(
                BuildProgress(
                    phase: .finishing, done: plan.total, total: plan.total, stored: writer.stats.tiles,
                    elapsed: Date().timeIntervalSince(start)))
            let stats: BundleWriteStats
            do {
                stats = try writer.finish(metadata: metadata(bounds: plan.bounds, zooms: plan.zooms, sources: sources), record: [:])
            } catch {
                throw .store(error)
            }
            if let trails {
                try trails.store(in: options.output)
                try Self.fillTrailElevations(of: options.output, sources: sources, layer: layer, logger: logger)
            }
            return BuildReport(
                output: options.output, tilesConsidered: plan.total, tilesStored: stats.tiles, uniqueImages: stats.uniqueImages,
                bytesStored: stats.storedBytes, tileBytes: stats.tileBytes, tilesPerZoom: stats.tilesPerZoom,
                seconds: Date().timeIntervalSince(start), spilledSources: 0, start: .fresh, update: nil, zooms: plan.zooms)
        } catch {
            writer.abandon()
            throw error
        }
    }

    /// Renders `plan`'s two passes (`TerrainRenderer`) into `writer`: the warped zooms, then those
    /// made from the means. `progress` gets the tiles considered and stored so far.
    private func render(
        _ plan: TerrainPlan, sources: TerrainSources, trails: PreparedTrails?, into writer: BundleWriter,
        progress: (_ done: Int, _ stored: Int) -> Void
    ) throws(BuildError) {
        let drawing = TerrainDrawing(layer: layer, ramp: layer.colorRelief?.resolved(min: sources.range.min, max: sources.range.max))
        let renderer = TerrainRenderer(
            layer: layer, pool: DEMReaderPool(paths: sources.dems.map(\.path), crs: layer.crs, unit: layer.verticalUnit),
            dems: sources.dems, drawing: drawing, trails: trails.map { ($0, plan.zooms) }, encoding: options.tileEncoding,
            size: plan.tileSize, border: plan.border, threads: max(1, options.renderThreads))
        let feeds = plan.topFeeds()
        try renderer.render(plan.warpedJobs(feeds: feeds, threads: renderer.threads), into: writer, progress: progress)
        guard let feeds else { return }
        let before = plan.warped.reduce(0) { $0 + $1.count }
        try renderer.render(plan.meanJobs(from: feeds, threads: renderer.threads), into: writer) { done, stored in
            progress(before + done, stored)
        }
    }

    /// The options a terrain build refuses: shards, updates, source layers beside it, a tile size
    /// other than 256 or 512, lossy terrain tiles.
    private func checkOptions() throws(BuildError) {
        try layer.validate()
        guard options.shard == nil, options.update == nil else { throw .terrain(.notShardedOrUpdated) }
        guard options.layers.allSatisfy({ $0.sources.isEmpty }) else { throw .terrain(.mixedWithSources) }
        guard [256, 512].contains(options.tileSize) else { throw .invalidOption(.tileSize(options.tileSize)) }
        if layer.encoding != nil && (options.format == .jpg || (options.format == .webp && !options.lossless)) {
            throw .terrain(.lossyTerrainTiles)
        }
    }

    /// What decides the tiles: a partial build with another fingerprint is started over.
    private func fingerprint(_ sources: TerrainSources, zooms: ClosedRange<Int>) -> String {
        var parts = [
            "terrain", BundleBuilder.version, layer.products, "\(zooms)", "\(options.tileSize)", options.format.rawValue,
            "\(options.lossless)", "\(layer.opacity)", "\(String(describing: layer.hillshade))",

            "\(String(describing: layer.colorRelief))", "\(String(describing: layer.contours))", layer.crs?.wkt ?? "",
            layer.verticalUnit?.rawValue ?? ""
        ]
        for dem in sources.dems {
            let stamp = SourceFileStamp(path: dem.path)
            parts.append("\(dem.path)|\(stamp)")
        }
        parts.append("\(String(describing: options.clipBounds))")
        return SHA256.hash(data: Data(parts.joined(separator: "\n").utf8)).map { String(format: "%02x", $0) }.joined()
    }

    private func metadata(bounds: GeoBounds, zooms: ClosedRange<Int>, sources: TerrainSources) -> BundleMetadata {
        var meta = BundleMetadata(name: options.name, bounds: bounds, minZoom: zooms.lowerBound, maxZoom: zooms.upperBound)
        let c = bounds.center
        meta.center = (c.lon, c.lat, (zooms.lowerBound + zooms.upperBound) / 2)
        meta.description =
            options.description.isEmpty ? "\(options.name) \(layer.encoding == nil ? "relief" : "terrain")" : options.description
        meta.attribution = options.attribution
        meta.version = options.version
        meta.format = options.format.rawValue
        let file = URL(fileURLWithPath: options.output).deletingPathExtension().lastPathComponent
        meta.extra["trailmap:region"] = options.regionID ?? file
        meta.extra["trailmap:builder"] = BundleBuilder.version
        let names = sources.dems.map { URL(fileURLWithPath: $0.path).lastPathComponent }
        meta.extra["trailmap:sources"] = names.joined(separator: ",")
        meta.extra["trailmap:tilesize"] = String(options.tileSize)
        meta.extra["trailmap:terrain"] = layer.products
        if let encoding = layer.encoding { meta.extra[TerrainEncoding.metadataKey] = encoding.metadataValue }
        meta.extra[BundleRole.metadataKey] = (layer.encoding == nil ? BundleRole.hillshade : .terrain).rawValue
        var layers = [
            BundleLayer(
                name: layer.name, title: layer.title, kind: .series, minzoom: zooms.lowerBound, maxzoom: zooms.upperBound,
                sources: names)
        ]
        if let t = options.trails, layer.encoding == nil {
            let z = t.zooms ?? zooms
            layers.append(
                BundleLayer(
                    name: t.name, title: t.title, kind: .overlay, minzoom: z.lowerBound, maxzoom: z.upperBound,
                    sources: t.sources.map { URL(fileURLWithPath: $0).lastPathComponent }))
        }
        meta.extra[BundleLayer.metadataKey] = BundleLayer.encode(layers)
        return meta
    }
}
