import Essentials
import Foundation
import Logging
import Raster
import SourceReaders
import Synchronization
import Terrain
import TileGeometry
import TileStore
import Trails

/// Turns georeferenced source images into an MBTiles region bundle.
public struct BundleBuilder: Sendable {
    public let options: BuildOptions
    let logger: Logger
    /// How the build's notices are worded in the log (default: their `description`); a program
    /// names its own options in them.
    public var noticeWording: @Sendable (BuildNotice) -> String = { $0.description }
    /// What tests set (`BuildHooks`): none by default.
    package var hooks = BuildHooks()

    public init(options: BuildOptions, logger: Logger = Logger(label: "trailmap.build")) {
        self.options = options
        self.logger = logger
    }

    /// Logs `notice` at its level, as `noticeWording` words it.
    func note(_ notice: BuildNotice) {
        logger.log(level: notice.level, "\(noticeWording(notice))")
    }

    /// The builder's version, stored as `trailmap:builder` (from `TrailMapVersion`, which
    /// the CLI's version prints too).
    public static let version = TrailMapVersion.builder

    /// Above this many tiles a build is refused as a likely mistake in the zoom range.
    public static let maxTiles = 200_000_000

    /// Runs the build. `progress` is called from the writer thread about every 100 ms. A partial
    /// build of the same fingerprint left by a killed run is continued (`BuildReport.start`).
    public func build(progress: @escaping @Sendable (BuildProgress) -> Void = { _ in }) throws(BuildError) -> BuildReport {
        let start = Date()
        if let terrain = options.terrain, terrain.blend == nil || options.sources.isEmpty {
            if terrain.blend != nil { throw .terrain(.blendWithoutLayers) }
            return try TerrainBuild(options: options, layer: terrain, logger: logger).run(progress: progress)
        }
        if options.sources.isEmpty, let trails = options.trails {
            return try TrailOverlayBuild(options: options, trails: try PreparedTrails.read(trails), logger: logger).run(progress: progress)
        }
        guard !options.zoomsFromSources.isEmpty else { return try run(plan(), start: start, progress: progress) }
        try options.validate()
        let sources = try inspectSources()
        let resolved = try withZooms(from: sources)
        var report = try resolved.run(resolved.plan(sources), start: start, progress: progress)
        // An update keeps its bundle's zooms (`withZooms`): none came from the sources.
        report.zoomsFromSources = options.update == nil ? options.zoomsFromSources : []
        return report
    }

    /// `hashes`: an update's sources hashed so far (by `LayerMatching`).
    private func run(
        _ plan: BuildPlan, start: Date, hashes: SourceHashes? = nil,
        progress: @escaping @Sendable (BuildProgress) -> Void
    ) throws(BuildError) -> BuildReport {
        let infos = plan.infos
        if let path = options.update, hashes == nil {
            return try runAdoptingLayerNames(plan, of: path, start: start, progress: progress)
        }
        // Stamps as the build begins: a source edited while it is read is recorded as changed.
        let startStamps = infos.map { SourceFileStamp(source: $0) }
        let total = plan.total
        let stamps = zip(plan.sources, startStamps).map { ($0.layer, $0.info.path, $1) }
        let trails = try options.trails.map(PreparedTrails.read)
        if let trails { logger.info("\(trails.records.count) trail(s) from \(trails.options.sources.count) file(s)") }
        let shading = try options.terrain.map { terrain throws(BuildError) in
            try terrain.validate()
            guard options.shard == nil, options.update == nil else { throw BuildError.terrain(.notShardedOrUpdated) }
            return try TerrainShading(layer: terrain, logger: logger)
        }
        if let shading {
            logger.info(
                """
                hillshade (\(shading.hillshade.mode.rawValue)) of \(shading.sources.dems.count) DEM(s) \
                \(shading.blend == .multiply ? "multiplied into" : "drawn over") the layers, opacity \(shading.layer.opacity)
                """
            )
        }
        var fingerprint = BuildFingerprint(
            options: options, sources: stamps + Self.demStamps(shading), sharedScales: plan.sharedScales,
            trails: trails?.digest)
        var update: UpdateSetup?
        if let path = options.update {
            update = try updateSetup(path, plan: plan, startStamps: startStamps, hashes: hashes, trails: trails, fingerprint: &fingerprint)
        }
        let redraw: (trails: TrailRedraw?, changed: Bool) = update?.redraw ?? (nil, false)
        let (writer, begun) = try openWriter(fingerprint: fingerprint)
        let shardNote = options.shard.map { ", shard \($0)" } ?? ""
        logger.info(
            """
            building \(options.output): \(infos.count) source(s) in \(options.layers.count) layer(s), zoom \
            \(options.minZoom)-\(options.maxZoom)\(shardNote), \(total) tiles to consider
            """
        )
        do throws(BuildError) {
            let scopes = update.map { u in
                plan.bands.map { band in
                    UpdateScope(dirty: band.layers.flatMap { u.changes.dirty[$0] }, trails: redraw.trails, writer: writer)
                }
            }
            if let update {
                do { try writer.attachBase(update.base.path) } catch { throw .store(error) }
            }
            let (spilled, resumedTiles) = try render(
                plan, writer: writer, start: start, scopes: scopes, trails: trails, shading: shading, progress: progress)
            if hooks.killAfterUnits == 0 { kill(getpid(), SIGKILL) }
            var summary: UpdateSummary?
            if let update, let scopes { summary = try update.summary(scopes: scopes, writer: writer) }
            // An update's sources are hashed once: unchanged ones keep their recorded hash.
            let known = update.map { $0.base.sources + $0.changes.hashed } ?? []
            let hashStart = Date()
            let records = try BuildRecord.sources(plan.sources, known: known, stamps: startStamps) { done, count in
                progress(
                    BuildProgress(
                        phase: .hashing, done: done, total: count, stored: writer.stats.tiles,
                        elapsed: Date().timeIntervalSince(hashStart)))
            }
            progress(
                BuildProgress(
                    phase: .finishing, done: total, total: total, stored: writer.stats.tiles,
                    elapsed: Date().timeIntervalSince(start)))
            let record = buildRecord(plan, fingerprint: fingerprint, sources: records, trails: trails)
            let stats: BundleWriteStats
            do { stats = try writer.finish(metadata: metadata(plan), record: record, keepUnits: options.shard != nil) } catch {
                throw .store(error)
            }
            // Shard parts store them too: the merge copies them and draws them over the levels it makes.
            if let trails { try trails.store(in: options.output) }
            if stats.tiles == 0 && options.shard == nil {
                note(.noTiles(output: options.output, minZoom: options.minZoom, maxZoom: options.maxZoom))
            }
            return BuildReport(
                output: options.output, tilesConsidered: total, tilesStored: stats.tiles,
                uniqueImages: stats.uniqueImages, bytesStored: stats.storedBytes, tileBytes: stats.tileBytes,
                tilesPerZoom: stats.tilesPerZoom, seconds: Date().timeIntervalSince(start),
                spilledSources: spilled, start: begun, tilesResumed: resumedTiles, update: summary,
                zooms: options.minZoom...options.maxZoom)
        } catch {
            writer.abandon()
            throw error
        }
    }

    /// An update whose layers named after their sources take the names of the bundle's layers
    /// they are (their sources moved), then run with the sources hashed so far.
    private func runAdoptingLayerNames(
        _ plan: BuildPlan, of path: String, start: Date,
        progress: @escaping @Sendable (BuildProgress) -> Void
    ) throws(BuildError) -> BuildReport {
        let base = try UpdateBase.read(path)
        let hashes = SourceHashes(sources: plan.sources)
        let adopted = try LayerMatching.adopt(
            options, recordedJSON: base.record[BuildRecord.tileSettingsJSONKey],
            recorded: base.sources, hashes: hashes, bundle: path)
        var builder = BundleBuilder(options: adopted, logger: logger)
        builder.noticeWording = noticeWording
        var plan = plan
        for (old, new) in zip(options.layers, adopted.layers) where old.name != new.name {
            logger.notice("layer \"\(old.name)\" is the bundle's layer \"\(new.name)\" (its sources moved): it keeps that name")
            if let scale = plan.sharedScales.removeValue(forKey: old.name) { plan.sharedScales[new.name] = scale }
        }
        return try builder.run(plan, start: start, hashes: hashes, progress: progress)
    }

    /// What an update starts from: the bundle updated, the sources' changes, and where the trails
    /// are drawn again. `fingerprint` becomes the update's (naming the bundle updated).
    private func updateSetup(
        _ path: String, plan: BuildPlan, startStamps: [SourceFileStamp], hashes: SourceHashes?,
        trails: PreparedTrails?, fingerprint: inout BuildFingerprint
    ) throws(BuildError) -> UpdateSetup {
        let base = try UpdateBase.open(path, tileSettings: fingerprint.tileSettings, json: fingerprint.tileSettingsJSON)
        let changes = try SourceChanges.between(
            old: base.sources, new: plan.sources, stamps: startStamps,
            layers: options.layers.count, hashes: hashes)
        logger.info(
            """
            updating \(path): \(changes.added.count) source(s) added, \(changes.removed.count) removed, \(changes.changed.count) changed, \
            \(changes.moved.count) moved (same content)
            """
        )
        let stamps = zip(plan.sources, startStamps).map { ($0.layer, $0.info.path, $1) }
        fingerprint = BuildFingerprint(
            options: options, sources: stamps, sharedScales: plan.sharedScales,
            base: base.record[BuildRecord.fingerprintKey] ?? path, trails: trails?.digest)
        var setup = UpdateSetup(base: base, changes: changes)
        // The trails' neighbourhood is drawn again in any update that renders, and when they changed.
        let trailsChanged = base.record[BuildRecord.tileSettingsKey] != fingerprint.tileSettings
        if trailsChanged || !changes.isEmpty {
            let boxes = try TrailRedraw.boxes(ofBundle: path) + (trails?.records.map(\.bounds) ?? [])
            setup.redraw = (boxes.isEmpty ? nil : TrailRedraw(boxes: boxes), trailsChanged)
            if trailsChanged { logger.info("updating \(path): the trails or their style changed; drawing the tiles near trails again") }
        }
        return setup
    }

    /// The output's writer: a fresh partial file, or the partial build of the same fingerprint
    /// left by a killed run (logged).
    private func openWriter(fingerprint: BuildFingerprint) throws(BuildError) -> (BundleWriter, BuildStart) {
        let writer: BundleWriter, begun: BuildStart
        do { (writer, begun) = try BundleWriter.resumable(path: options.output, fingerprint: fingerprint.full) } catch {
            throw .store(error)
        }
        switch begun {
        case .fresh: break
        case let .resumed(units, tiles):
            logger.notice("resuming the partial build of \(options.output): \(units) unit(s), \(tiles) tiles already made")
        case let .discarded(reason):
            logger.notice("starting \(options.output) over: the partial build left beside it was deleted (\(reason))")
        }
        return (writer, begun)
    }

    /// The build's record: its settings and sources, and a shard part's plan for the merge.
    private func buildRecord(
        _ plan: BuildPlan, fingerprint: BuildFingerprint, sources: [BuildRecord.Source],
        trails: PreparedTrails?
    ) -> [String: String] {
        var record = [
            BuildRecord.settingsKey: fingerprint.settings, BuildRecord.tileSettingsKey: fingerprint.tileSettings,
            BuildRecord.tileSettingsJSONKey: fingerprint.tileSettingsJSON,
            BuildRecord.sourcesKey: BuildRecord.json(sources)
        ]
        if let shard = options.shard {
            record[BuildRecord.shardKey] = shard.description
            record[BuildRecord.planKey] = BuildRecord.json(
                plan.recordPlan(
                    tileSize: options.tileSize, encoding: options.tileEncoding,
                    trails: trails?.options, build: options.minZoom...options.maxZoom))
            if options.regionID == nil { record[BuildRecord.regionFromFileKey] = "1" }
        }
        return record
    }

    /// Prepares the sources and renders every band's units not finished yet; the number of
    /// sources spilled to disk.
    private func render(
        _ plan: BuildPlan, writer: BundleWriter, start: Date, scopes: [UpdateScope]?, trails: PreparedTrails?,
        shading: TerrainShading?, progress: @escaping @Sendable (BuildProgress) -> Void
    ) throws(BuildError) -> (spilled: Int, resumedTiles: Int) {
        // PNG sources are decoded up front: half the memory limit may hold their pixels, the rest is
        // for rendering threads. GDAL sources are read window by window while rendering.
        var budget = options.memoryLimit / 2
        GDALEnvironment.setCacheBytes(options.gdalCacheBytes)
        var sources = [PreparedSource]()
        var pyramids = [SourcePyramid]()
        let scratch = options.scratchDirectory ?? URL(fileURLWithPath: options.output).deletingLastPathComponent().path
        let drawings = RenderedPage.Drawings()
        for (i, planned) in plan.sources.enumerated() {
            let info = planned.info
            progress(
                BuildProgress(phase: .decoding, done: i, total: plan.sources.count, stored: 0, elapsed: Date().timeIntervalSince(start)))
            let layer = options.layers[planned.layer]
            let style = LayerStyle(
                resampling: layer.resampling ?? options.resampling, opacity: layer.opacity,
                layer: planned.layer)
            let (source, pyramid) = try SourceLoader.prepare(
                info, style: style, memoryBudget: budget, memoryLimit: options.memoryLimit,
                scratch: scratch, logger: logger, drawings: drawings)
            if let pyramid {
                if !pyramid.isFileBacked { budget -= pyramid.byteCount }
                logger.debug("decoded \(info.path) \(info.width)x\(info.height) \(pyramid.isFileBacked ? "spilled to disk" : "in memory")")
                pyramids.append(pyramid)
            }
            sources.append(source)
        }
        if options.renderThreads < options.threads {
            note(.fewerRenderThreads(used: options.renderThreads, asked: options.threads))
        }
        let finished: Set<BuildUnit>
        do { finished = try writer.finishedUnits() } catch { throw .store(error) }
        let renderStart = Date()
        var before = 0, resumedTiles = 0
        for (b, band) in plan.bands.enumerated() {
            let mine = sources.indices.filter { band.layers.contains(plan.sources[$0].layer) }.map { sources[$0] }
            if plan.bands.count > 1 {
                logger.info(
                    """
                    zooms \(band.zooms.lowerBound)-\(band.zooms.upperBound): layers \
                    \(band.layers.map { options.layers[$0].name }.joined(separator: ", ")), \(mine.count) source(s)
                    """
                )
            }
            let offset = before
            let done = band.units.filter { finished.contains(BuildUnit(band: b, tile: $0)) }
            resumedTiles += done.reduce(0) { $0 + band.subtreeCount($1) }
            let doneBefore = resumedTiles
            var todo = band
            todo.units = band.units.filter { !finished.contains(BuildUnit(band: b, tile: $0)) }
            var rendering = TileRendering(
                band: todo, bandIndex: b, sources: mine, options: options, finished: done,
                buildsUpperLevels: options.shard == nil)
            rendering.update = scopes?[b]
            rendering.trails = trails
            rendering.hooks = hooks
            rendering.shading = shading
            let outcome = rendering.run(
                writer: writer,
                recordedRoot: { unit throws(BuildError) in
                    let data: [UInt8]?
                    do throws(TileStoreError) { data = try writer.unitRoot(BuildUnit(band: b, tile: unit)) } catch { throw .store(error) }
                    return try Self.decodeRoot(data, unit: unit)
                }
            ) { done, stored in
                progress(
                    BuildProgress(
                        phase: .rendering, done: offset + done, total: plan.total, stored: stored,
                        elapsed: Date().timeIntervalSince(renderStart), drawing: drawings.current, doneBefore: doneBefore))
            }
            if let failure = outcome { throw failure }
            before += band.total
        }
        return (pyramids.filter(\.isFileBacked).count, resumedTiles)
    }

    /// The stamps of a blended hillshade's DEMs, for the fingerprint (a layer index past the
    /// source layers'): a partial build whose DEMs changed starts over.
    static func demStamps(_ shading: TerrainShading?) -> [(layer: Int, path: String, stamp: SourceFileStamp)] {
        guard let shading else { return [] }
        return shading.sources.dems.map { (-1, $0.path, SourceFileStamp(path: $0.path)) }
    }

    /// The layers as the bundle records them: zooms resolved, sources by file name.
    func recordedLayers(_ plan: BuildPlan) -> [BundleLayer] {
        let trails = options.trails.map { t in
            let z = t.zooms ?? options.minZoom...options.maxZoom
            return BundleLayer(
                name: t.name, title: t.title, kind: .overlay, minzoom: z.lowerBound, maxzoom: z.upperBound,
                sources: t.sources.map { URL(fileURLWithPath: $0).lastPathComponent })
        }
        return options.layers.enumerated().map { l, layer in
            let z = layer.zooms(inBuild: options.minZoom...options.maxZoom)
            let names = plan.sources.filter { $0.layer == l }.map { URL(fileURLWithPath: $0.info.path).lastPathComponent }
            return BundleLayer(
                name: layer.name, title: layer.title, kind: layer.kind, minzoom: z.lowerBound,
                maxzoom: z.upperBound, sources: names)
        } + (trails.map { [$0] } ?? [])
    }

    private func metadata(_ plan: BuildPlan) -> BundleMetadata {
        var bounds = plan.bounds
        let infos = plan.infos
        // Sources either side of the antimeridian centre near it, not near 0°; when that centre
        // lies outside the bounds (separate sources either side, e.g. Guam and Hawaii), the bounds
        // span every longitude, as MBTiles bounds cannot wrap.
        let c = bounds.center
        let parts = infos.flatMap(\.parts).compactMap { $0.intersection(bounds) }
        let lon = Antimeridian.centerLongitude(parts) ?? c.lon
        if lon < bounds.west || lon > bounds.east { (bounds.west, bounds.east) = (-180, 180) }
        var meta = BundleMetadata(name: options.name, bounds: bounds, minZoom: options.minZoom, maxZoom: options.maxZoom)
        meta.center = (lon, c.lat, min(options.maxZoom, max(options.minZoom, (options.minZoom + options.maxZoom) / 2)))
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
