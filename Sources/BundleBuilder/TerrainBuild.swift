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
        var region = sources.bounds
        if let clip = options.clipBounds {
            guard let inside = region.intersection(clip) else {
                throw .sourceOutsideRegion(path: sources.dems[0].path, layer: layer.name, bounds: clip)
            }
            region = inside
        }
        guard let bounds = region.clippedToMercator else { throw .outsideMercator(path: sources.dems[0].path, bounds: region) }
        let zooms = try self.zooms(sources: sources, bounds: bounds)
        let drawing = TerrainDrawing(layer: layer, ramp: layer.colorRelief?.resolved(min: sources.range.min, max: sources.range.max))
        let trails = try layer.encoding == nil ? options.trails.map(PreparedTrails.read) : nil
        let ranges = zooms.map { TileRange(bounds: bounds, zoom: $0) }
        let total = ranges.reduce(0) { $0 + $1.count }
        guard total <= BundleBuilder.maxTiles else { throw .tooManyTiles(count: total, maxZoom: zooms.upperBound) }
        // Before anything is written: a contour interval too fine for a zoom's tiles.
        try TerrainContourCheck(layer: layer, sources: sources).check(zooms: zooms, bounds: bounds)
        logger.info(
            """
            building \(options.output): \(layer.products) from \(sources.dems.count) DEM(s), zoom \
            \(zooms.lowerBound)-\(zooms.upperBound), \(total) tiles to consider
            """
        )

        let writer: BundleWriter
        do { (writer, _) = try BundleWriter.resumable(path: options.output, fingerprint: fingerprint(sources, zooms: zooms)) } catch {
            throw .store(error)
        }
        do throws(BuildError) {
            let n = options.tileSize
            let border = max(layer.hillshade != nil ? 1 : 0, layer.contours?.border ?? 0)
            let renderer = TerrainRenderer(
                layer: layer, pool: DEMReaderPool(paths: sources.dems.map(\.path), crs: layer.crs, unit: layer.verticalUnit),
                dems: sources.dems, drawing: drawing, trails: trails.map { ($0, zooms) }, encoding: options.tileEncoding, size: n,
                border: border, threads: max(1, options.renderThreads))
            let top = options.clipBounds == nil ? Self.pyramidTop(ranges: ranges, size: n, border: border) : nil
            let report = { (base: Int) in
                { (done: Int, stored: Int) in
                    progress(
                        BuildProgress(
                            phase: .rendering, done: base + done, total: total, stored: stored,
                            elapsed: Date().timeIntervalSince(start)))
                }
            }
            // The zooms warped from the DEMs in one pass (the top one feeding the level below it),
            // then those made from the finer zoom's means in another.
            let feeds = top.flatMap { t in ranges.first { $0.z == t - 1 } }.map { TerrainLevel(range: $0, size: n, border: border) }
            let warped = ranges.filter { top == nil || $0.z >= top! }
            try renderer.render(
                Self.warpedJobs(warped, top: top, feeds: feeds, finest: sources.finestPixel, size: n, threads: renderer.threads),
                into: writer, progress: report(0))
            if let top, let feeds {
                try renderer.render(
                    Self.levelJobs(ranges.filter { $0.z < top }, from: feeds, threads: renderer.threads), into: writer,
                    progress: report(warped.reduce(0) { $0 + $1.count }))
            }
            progress(
                BuildProgress(
                    phase: .finishing, done: total, total: total, stored: writer.stats.tiles, elapsed: Date().timeIntervalSince(start)))
            let stats: BundleWriteStats
            do { stats = try writer.finish(metadata: metadata(bounds: bounds, zooms: zooms, sources: sources), record: [:]) } catch {
                throw .store(error)
            }
            if let trails {
                try trails.store(in: options.output)
                try Self.fillTrailElevations(of: options.output, sources: sources, layer: layer, logger: logger)
            }
            return BuildReport(
                output: options.output, tilesConsidered: total, tilesStored: stats.tiles, uniqueImages: stats.uniqueImages,
                bytesStored: stats.storedBytes, tileBytes: stats.tileBytes, tilesPerZoom: stats.tilesPerZoom,
                seconds: Date().timeIntervalSince(start), spilledSources: 0, start: .fresh, update: nil, zooms: zooms)
        } catch {
            writer.abandon()
            throw error
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

    /// The blocks of `ranges`, warped from the DEMs: averaging where a zoom's pixels are coarser
    /// than the finest DEM's (`finest`, Web Mercator metres; unknown: averaging), bilinear where
    /// finer; the `top` zoom's blocks fill `feeds`. An averaging block costs the DEM pixels it
    /// reads besides its tiles.
    static func warpedJobs(
        _ ranges: [TileRange], top: Int?, feeds: TerrainLevel?, finest: Double?, size n: Int, threads: Int
    ) -> [TerrainJob] {
        var jobs = [TerrainJob]()
        for range in ranges {
            let pixel = WebMercator.tileSpan(zoom: range.z) / Double(n)
            let sampling: DEMReader.Sampling = finest.map { pixel > $0 } ?? true ? .average : .bilinear
            let perTile = sampling == .average ? 1 + pow(pixel / (finest ?? pixel), 2) : 1
            for block in TerrainBlock.blocks(of: range, side: TerrainBlock.side(for: range, tileSize: n, threads: threads)) {
                jobs.append(
                    TerrainJob(
                        block: block, level: nil, feeds: range.z == top ? feeds : nil, sampling: sampling,
                        cost: Double(block.tiles.count) * perTile))
            }
        }
        return jobs
    }

    /// The blocks of `ranges` (the zooms below the pyramid's top), each zoom's elevations the 2×2
    /// means of the next finer one's, from `level` (the zoom just below the top) down.
    static func levelJobs(_ ranges: [TileRange], from level: TerrainLevel, threads: Int) -> [TerrainJob] {
        var level = level, jobs = [TerrainJob]()
        for range in ranges.sorted(by: { $0.z > $1.z }) {
            if range.z < level.range.z { level = level.coarser(range: range) }
            for block in TerrainBlock.blocks(of: range, side: TerrainBlock.side(for: range, tileSize: level.size, threads: threads)) {
                jobs.append(TerrainJob(block: block, level: level, feeds: nil, sampling: .average, cost: Double(block.tiles.count)))
            }
        }
        return jobs
    }

    /// The zoom whose warped elevations make those of every zoom below it (each from the next
    /// finer one's 2×2 means, `TerrainLevel`): the highest zoom above the lowest one whose next
    /// lower zoom's level fits `TerrainLevel.maxPixels`; nil when every zoom is warped from the
    /// DEM. When that zoom is finer than the DEM (bilinear), the zooms below it are means of its
    /// interpolated elevations rather than GDAL's averaging warp of the DEM: the warp of the
    /// first zoom coarser than the DEM is the costliest part of a build, and the means stay far
    /// above the fidelity the benchmark asks (docs/notes/terrain-measurements.md).
    static func pyramidTop(ranges: [TileRange], size: Int, border: Int) -> Int? {
        var top: Int?
        for (i, range) in ranges.enumerated() where i > 0 {
            let (w, h) = TerrainLevel.dimensions(range: ranges[i - 1], size: size, border: border)
            if w * h <= TerrainLevel.maxPixels { top = range.z }
        }
        return top
    }

    /// The build's zooms: the layer's, else those given, else from the DEMs (the highest zoom
    /// whose pixels are not finer than the finest DEM's; the lowest at which the region fits a tile).
    func zooms(sources: TerrainSources, bounds: GeoBounds) throws(BuildError) -> ClosedRange<Int> {
        if let z = layer.zooms { return z }
        let from = options.zoomsFromSources
        let box = bounds.mercator
        let z = ZoomChoice.range(
            lowest: from.contains(.min) ? nil : options.minZoom, highest: from.contains(.max) ? nil : options.maxZoom,
            from: from, finest: sources.finestPixel, region: (box.maxX - box.minX, box.maxY - box.minY),
            tileSize: options.tileSize)
        guard z.min <= z.max else { throw .zoomOrder(min: z.min, max: z.max) }
        guard z.max <= TileID.maxZoom else { throw .zoomTooHigh(z.max) }
        return z.min...z.max
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
