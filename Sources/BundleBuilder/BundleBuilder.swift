import Essentials
import Foundation
import Logging
import Raster
import SourceReaders
import Synchronization
import TileGeometry
import Terrain
import TileStore

/// Turns georeferenced source images into an MBTiles region bundle.
public struct BundleBuilder: Sendable {
    public let options: BuildOptions
    private let logger: Logger
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
        /// Per band, the zoom of its units and the units this build renders (a shard's share).
        var unitZooms: [Int]
        var units: [[TileID]]
        /// Per band, the tiles this build considers: its units' subtrees and the tiles above them
        /// (a shard part: its units' subtrees only).
        var bandTotals: [Int]
        /// Tiles this build considers, over every band.
        var total: Int { bandTotals.reduce(0, +) }
        /// Per layer without a given scale range, the joint range its non-8-bit sources are mapped from
        /// (derived from the sources, so part of what decides the tiles).
        var sharedScales: [String: [Double]] = [:]

        /// The record a shard part keeps for the merge.
        func recordPlan(tileSize: Int, encoding: TileEncoding, trails: TrailLayerOptions?, build: ClosedRange<Int>) -> BuildRecord.Plan {
            BuildRecord.Plan(bands: bands.indices.map { b in
                BuildRecord.Plan.Band(zooms: [bands[b].zooms.lowerBound, bands[b].zooms.upperBound], unitZoom: unitZooms[b],
                                      ranges: ranges[b].map { [$0.z, $0.minX, $0.maxX, $0.minY, $0.maxY] })
            }, tileSize: tileSize, encoding: encoding, trails: trails.map { t in
                let zooms = t.zooms ?? build
                return BuildRecord.Plan.Trails(name: t.name, title: t.title, zooms: [zooms.lowerBound, zooms.upperBound], style: t.style)
            })
        }
    }

    /// The sources as read, every layer's, in drawing order.
    struct InspectedSources {
        var infos: [SourceInfo]
        /// The layer of each source.
        var layerOf: [Int]
        /// Per layer without a given scale range, the joint range of its non-8-bit sources (`Plan.sharedScales`).
        var sharedScales: [String: [Double]]
    }

    /// Reads every source's header and georeference.
    func inspectSources() throws(BuildError) -> InspectedSources {
        var infos = [SourceInfo](), layerOf = [Int](), sharedScales = [String: [Double]]()
        for (l, layer) in options.layers.enumerated() {
            let paths = try SourceList.expand(layer.sources)
            let read = layer.readOptions(over: options.read)
            var layerInfos = [SourceInfo]()
            var unused = [(option: IgnoredReadOption, paths: [String])]()   // in the order first met
            for path in paths {
                let info = try SourceLoader.inspect(path, options: read)
                logger.debug("layer \(layer.name): source \(infos.count + layerInfos.count + 1) \(path): \(info.summary)")
                if case let .raster(d) = info.kind, d.nothingToDraw {
                    logger.warning("\(path): every pixel is nodata or NaN, so it draws nothing")
                }
                if case let .raster(d) = info.kind, d.neatlineOffTheRaster {
                    logger.warning("\(path): its NEATLINE metadata lies off the raster, so it is not applied and the collar is drawn (gdalwarp copies a PDF's neatline into a raster of another CRS or extent; warp with -nomd, or cut the collar with -cutline)")
                }
                for option in info.unusedOptions(scaleGiven: read.scale != nil) {
                    if let i = unused.firstIndex(where: { $0.option == option }) { unused[i].paths.append(path) } else { unused.append((option, [path])) }
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
            infos += layerInfos
            layerOf += Array(repeating: l, count: layerInfos.count)
        }
        return skippingSourcesOutsideClip(InspectedSources(infos: infos, layerOf: layerOf, sharedScales: sharedScales))
    }

    /// `sources` without those wholly outside `clipBounds` (one warning names them), unless every
    /// source is: then none is dropped, and planning says the region holds nothing.
    func skippingSourcesOutsideClip(_ sources: InspectedSources) -> InspectedSources {
        guard let clip = options.clipBounds else { return sources }
        let inside = sources.infos.indices.filter { i in sources.infos[i].parts.contains { $0.intersection(clip) != nil } }
        guard !inside.isEmpty, inside.count < sources.infos.count else { return sources }
        let skipped = sources.infos.indices.filter { !inside.contains($0) }.map { sources.infos[$0].path }
        let others = skipped.count > 1 ? " and \(skipped.count - 1) other source(s)" : ""
        logger.warning("\(skipped[0])\(others) skipped: wholly outside the region's bounds \(clip)")
        var kept = sources
        kept.infos = inside.map { sources.infos[$0] }
        kept.layerOf = inside.map { sources.layerOf[$0] }
        return kept
    }

    /// The region: the union of the sources, inside `clipBounds` and the Mercator range.
    func region(_ infos: [SourceInfo], layerOf: [Int]) throws(BuildError) -> GeoBounds {
        var union = infos[0].bounds
        for info in infos.dropFirst() { union = union.union(info.bounds) }
        if let region = options.clipBounds {
            for (i, info) in infos.enumerated() where info.parts.allSatisfy({ $0.intersection(region) == nil }) {
                throw .sourceOutsideRegion(path: info.path, layer: options.layers[layerOf[i]].name, bounds: region)
            }
            union = union.intersection(region) ?? region
        }
        guard let bounds = union.clippedToMercator else {
            throw .outsideMercator(path: infos[0].path, bounds: union)
        }
        return bounds
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
        let finest = sources.infos.indices.filter { unranged.contains(sources.layerOf[$0]) }
            .compactMap { sources.infos[$0].mercatorPixelSize }.min()
        // The region's width the narrow way round: sources either side of the antimeridian, whose
        // bounds span every longitude, are as wide as their parts together.
        let bounds = try region(sources.infos, layerOf: sources.layerOf), box = bounds.mercator
        let parts = sources.infos.flatMap(\.parts).compactMap { $0.intersection(bounds) }
        let width = Antimeridian.spannedLongitudes(parts).map { $0 / 360 * ZoomChoice.worldWidth } ?? (box.maxX - box.minX)
        let region = (width: min(width, box.maxX - box.minX), height: box.maxY - box.minY)
        let zooms = ZoomChoice.range(lowest: from.contains(.min) ? ranged.map(\.lowerBound).min() : options.minZoom,
                                     highest: from.contains(.max) ? ranged.map(\.upperBound).max() : options.maxZoom,
                                     from: from, finest: finest, region: region, tileSize: options.tileSize)
        resolved.minZoom = zooms.min
        resolved.maxZoom = zooms.max
        let pixel = finest.map { String(format: "%.3g m", $0) } ?? "unknown"
        logger.notice("zooms \(zooms.min)-\(zooms.max), from the sources: the finest pixel is \(pixel) in Web Mercator, and the region fits one tile at zoom \(ZoomChoice.zoom(fitting: region.width, region.height))")
        try resolved.validate()
        return BundleBuilder(options: resolved, logger: logger)
    }

    /// The zooms a bundle's metadata gives, nil when it cannot be read (the update then fails
    /// opening it, with the reason).
    static func zooms(ofBundle path: String) -> ClosedRange<Int>? {
        guard let pairs = try? BundleReader(path: path).metadataPairs(),
              let lo = pairs["minzoom"].flatMap({ Int($0) }), let hi = pairs["maxzoom"].flatMap({ Int($0) }), lo <= hi else { return nil }
        return lo...hi
    }

    /// Checks everything that can be checked without writing: options and layers, every
    /// source's header and georeference (unless already read), the zoom range, the output folder.
    func plan(_ read: InspectedSources? = nil) throws(BuildError) -> Plan {
        try options.validate()
        let sources: InspectedSources
        if let read { sources = read } else { sources = try inspectSources() }
        let infos = sources.infos, layerOf = sources.layerOf, sharedScales = sources.sharedScales
        let bounds = try region(infos, layerOf: layerOf)
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
        // Checked before any unit is enumerated, on the smaller of two upper bounds of the tiles
        // made: the ranges (which span every longitude across the antimeridian, and the gap
        // between far-apart sources) and the sources' parts one by one. (The tiles considered,
        // whole units' subtrees, can be several times the parts' tiles for tiny sources.)
        let needed = min(ranges.joined().reduce(0) { $0 + $1.count },
                         Self.partTiles(infos, layerOf: layerOf, bands: bands, bounds: bounds))
        guard needed <= BundleBuilder.maxTiles else { throw .tooManyTiles(count: needed, maxZoom: options.maxZoom) }
        var unitZooms = [Int](), units = [[TileID]](), work = [[Int]]()
        var bandTotals = [Int]()
        for (b, band) in bands.enumerated() {
            let z = BuildUnits.unitZoom(ranges: ranges[b], minZoom: band.zooms.lowerBound, maxZoom: band.zooms.upperBound)
            unitZooms.append(z)
            let parts = infos.indices.filter { band.layers.contains(layerOf[$0]) }
                .flatMap { infos[$0].parts.compactMap { $0.clippedToMercator } }
            units.append(BuildUnits.units(ranges: ranges[b], minZoom: band.zooms.lowerBound, unitZoom: z, footprints: parts))
            if options.shard != nil {
                let top = ranges[b][band.zooms.count - 1]
                let footprints = parts.map { TileRange(bounds: $0, zoom: top.z) }
                work.append(units[b].map { BuildUnits.work(unit: $0, top: top, footprints: footprints) })
            }
        }
        if let shard = options.shard { units = BuildUnits.select(shard, units: units, work: work) }
        // The tiles to consider: those of the units' subtrees and, unless a shard part (the merge
        // makes them), the ones above them.
        for (b, band) in bands.enumerated() {
            let above = options.shard == nil
                ? BuildUnits.expectedChildren(units: units[b], unitZoom: unitZooms[b], minZoom: band.zooms.lowerBound).count : 0
            bandTotals.append(units[b].reduce(above) { $0 + Self.subtreeCount($1, ranges: ranges[b], maxZoom: band.zooms.upperBound) })
        }
        try checkOutput()
        return Plan(sources: infos, layerOf: layerOf, bands: bands, bounds: bounds, ranges: ranges, unitZooms: unitZooms,
                    units: units, bandTotals: bandTotals, sharedScales: sharedScales)
    }

    /// Tiles of `bands` over the sources' parts, each part counted on its own (an upper bound of
    /// the tiles the build makes: overlaps count twice), so neither a build across the
    /// antimeridian nor one of far-apart sources is counted over the gap between them.
    static func partTiles(_ infos: [SourceInfo], layerOf: [Int], bands: [ZoomBand], bounds: GeoBounds) -> Int {
        var count = 0
        for band in bands {
            for (i, info) in infos.enumerated() where band.layers.contains(layerOf[i]) {
                for part in info.parts {
                    guard let p = part.intersection(bounds) else { continue }
                    for z in band.zooms { count += TileRange(bounds: p, zoom: z).count }
                }
            }
        }
        return count
    }

    /// A recorded unit root's pixels (nil: transparent).
    static func decodeRoot(_ data: [UInt8]?, unit: TileID) throws(BuildError) -> RGBAImage? {
        guard let data else { return nil }
        do throws(TileCodecError) { return try TileDecoder.decode(data) } catch { throw .encode(tile: unit, error) }
    }

    /// The parts of `ranges` in the subtree of `t`, one range a zoom from `t.z` to `maxZoom`
    /// (zooms where the subtree misses the ranges are left out).
    static func subtreeRanges(_ t: TileID, ranges: [TileRange], maxZoom: Int) -> [TileRange] {
        let minZ = ranges[0].z
        return (t.z...maxZoom).compactMap { z in ranges[z - minZ].intersection(TileRange(under: t, zoom: z)) }
    }

    /// Tiles of `ranges` in the subtree of `t`, down to `maxZoom`.
    static func subtreeCount(_ t: TileID, ranges: [TileRange], maxZoom: Int) -> Int {
        subtreeRanges(t, ranges: ranges, maxZoom: maxZoom).reduce(0) { $0 + $1.count }
    }

    private func checkOutput() throws(BuildError) {
        do { try BundleWriter.checkDestination(options.output) } catch { throw .store(error) }
    }

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
    private func run(_ plan: Plan, start: Date, hashes: SourceHashes? = nil,
                     progress: @escaping @Sendable (BuildProgress) -> Void) throws(BuildError) -> BuildReport {
        let infos = plan.sources
        if let path = options.update, hashes == nil {
            // Layers named after sources that moved keep the names of the bundle's layers they are.
            let base = try UpdateBase.read(path)
            let hashes = SourceHashes(infos: infos, layerOf: plan.layerOf)
            let adopted = try LayerMatching.adopt(options, recordedJSON: base.record[BuildRecord.tileSettingsJSONKey],
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
        // Stamps as the build begins: a source edited while it is read is recorded as changed.
        let startStamps = infos.map { SourceFileStamp(source: $0) }
        let total = plan.total
        let stamps = infos.indices.map { (plan.layerOf[$0], infos[$0].path, startStamps[$0]) }
        let trails = try options.trails.map(PreparedTrails.read)
        if let trails { logger.info("\(trails.records.count) trail(s) from \(trails.options.sources.count) file(s)") }
        let shading = try options.terrain.map { terrain throws(BuildError) in
            try terrain.validate()
            guard options.shard == nil, options.update == nil else { throw BuildError.terrain(.notShardedOrUpdated) }
            return try TerrainShading(layer: terrain, logger: logger)
        }
        if let shading { logger.info("hillshade (\(shading.hillshade.mode.rawValue)) of \(shading.sources.dems.count) DEM(s) \(shading.blend == .multiply ? "multiplied into" : "drawn over") the layers, opacity \(shading.layer.opacity)") }
        var fingerprint = BuildFingerprint(options: options, sources: stamps + Self.demStamps(shading), sharedScales: plan.sharedScales,
                                           trails: trails?.digest)
        var update: (base: UpdateBase, changes: SourceChanges)?
        var redraw: (trails: TrailRedraw?, changed: Bool) = (nil, false)
        if let path = options.update {
            let base = try UpdateBase.open(path, tileSettings: fingerprint.tileSettings, json: fingerprint.tileSettingsJSON)
            let changes = try SourceChanges.between(old: base.sources, new: infos, stamps: startStamps, layerOf: plan.layerOf,
                                                    layers: options.layers.count, hashes: hashes)
            logger.info("updating \(path): \(changes.added.count) source(s) added, \(changes.removed.count) removed, \(changes.changed.count) changed, \(changes.moved.count) moved (same content)")
            fingerprint = BuildFingerprint(options: options, sources: stamps, sharedScales: plan.sharedScales,
                                           base: base.record[BuildRecord.fingerprintKey] ?? path, trails: trails?.digest)
            update = (base, changes)
            // The trails' neighbourhood is drawn again in any update that renders, and when they changed.
            let trailsChanged = base.record[BuildRecord.tileSettingsKey] != fingerprint.tileSettings
            if trailsChanged || !changes.isEmpty {
                let boxes = try TrailRedraw.boxes(ofBundle: path) + (trails?.records.map(\.bounds) ?? [])
                redraw = (boxes.isEmpty ? nil : TrailRedraw(boxes: boxes), trailsChanged)
                if trailsChanged { logger.info("updating \(path): the trails or their style changed; drawing the tiles near trails again") }
            }
        }
        let writer: BundleWriter, begun: BuildStart
        do { (writer, begun) = try BundleWriter.resumable(path: options.output, fingerprint: fingerprint.full) } catch { throw .store(error) }
        switch begun {
        case .fresh: break
        case let .resumed(units, tiles): logger.notice("resuming the partial build of \(options.output): \(units) unit(s), \(tiles) tiles already made")
        case let .discarded(reason): logger.notice("starting \(options.output) over: the partial build left beside it was deleted (\(reason))")
        }
        let shardNote = options.shard.map { ", shard \($0)" } ?? ""
        logger.info("building \(options.output): \(infos.count) source(s) in \(options.layers.count) layer(s), zoom \(options.minZoom)-\(options.maxZoom)\(shardNote), \(total) tiles to consider")
        do throws(BuildError) {
            let scopes = update.map { u in
                plan.bands.map { band in UpdateScope(dirty: band.layers.flatMap { u.changes.dirty[$0] }, trails: redraw.trails, writer: writer) }
            }
            if let update {
                do { try writer.attachBase(update.base.path) } catch { throw .store(error) }
            }
            let (spilled, resumedTiles) = try render(plan, writer: writer, start: start, scopes: scopes, trails: trails, shading: shading, progress: progress)
            if hooks.killAfterUnits == 0 { kill(getpid(), SIGKILL) }
            var summary: UpdateSummary?
            if let update, let scopes {
                let diff: (added: Int, removed: Int, changed: Int)
                do { diff = try writer.compareWithBase() } catch { throw .store(error) }
                let rendered = scopes.reduce(0) { $0 + $1.renderedCount }
                summary = UpdateSummary(sourcesAdded: update.changes.added, sourcesRemoved: update.changes.removed,
                                        sourcesChanged: update.changes.changed, sourcesMoved: update.changes.moved.map(\.to),
                                        tilesRendered: rendered,
                                        tilesKept: writer.stats.keptTiles, tilesAdded: diff.added, tilesRemoved: diff.removed,
                                        tilesChanged: diff.changed, trailsChanged: redraw.changed, trailsRedrawn: redraw.trails != nil)
            }
            // An update's sources are hashed once: unchanged ones keep their recorded hash.
            let known = update.map { $0.base.sources + $0.changes.hashed } ?? []
            let hashStart = Date()
            let records = try BuildRecord.sources(infos, layerOf: plan.layerOf, known: known, stamps: startStamps) { done, count in
                progress(BuildProgress(phase: .hashing, done: done, total: count, stored: writer.stats.tiles,
                                       elapsed: Date().timeIntervalSince(hashStart)))
            }
            progress(BuildProgress(phase: .finishing, done: total, total: total, stored: writer.stats.tiles,
                                   elapsed: Date().timeIntervalSince(start)))
            var record = [BuildRecord.settingsKey: fingerprint.settings, BuildRecord.tileSettingsKey: fingerprint.tileSettings,
                          BuildRecord.tileSettingsJSONKey: fingerprint.tileSettingsJSON,
                          BuildRecord.sourcesKey: BuildRecord.json(records)]
            if let shard = options.shard {
                record[BuildRecord.shardKey] = shard.description
                record[BuildRecord.planKey] = BuildRecord.json(plan.recordPlan(tileSize: options.tileSize, encoding: options.tileEncoding,
                                                                                trails: trails?.options, build: options.minZoom...options.maxZoom))
                if options.regionID == nil { record[BuildRecord.regionFromFileKey] = "1" }
            }
            let stats: BundleWriteStats
            do { stats = try writer.finish(metadata: metadata(plan), record: record, keepUnits: options.shard != nil) } catch { throw .store(error) }
            // Shard parts store them too: the merge copies them and draws them over the levels it makes.
            if let trails { try trails.store(in: options.output) }
            if stats.tiles == 0 && options.shard == nil {
                note(.noTiles(output: options.output, minZoom: options.minZoom, maxZoom: options.maxZoom))
            }
            return BuildReport(output: options.output, tilesConsidered: total, tilesStored: stats.tiles,
                               uniqueImages: stats.uniqueImages, bytesStored: stats.storedBytes, tileBytes: stats.tileBytes,
                               tilesPerZoom: stats.tilesPerZoom, seconds: Date().timeIntervalSince(start),
                               spilledSources: spilled, start: begun, tilesResumed: resumedTiles, update: summary,
                               zooms: options.minZoom...options.maxZoom)
        } catch {
            writer.abandon()
            throw error
        }
    }

    /// Prepares the sources and renders every band's units not finished yet; the number of
    /// sources spilled to disk.
    private func render(_ plan: Plan, writer: BundleWriter, start: Date, scopes: [UpdateScope]?, trails: PreparedTrails?,
                        shading: TerrainShading?, progress: @escaping @Sendable (BuildProgress) -> Void) throws(BuildError) -> (spilled: Int, resumedTiles: Int) {
        let infos = plan.sources
        // PNG sources are decoded up front: half the memory limit may hold their pixels, the rest is
        // for rendering threads. GDAL sources are read window by window while rendering.
        var budget = options.memoryLimit / 2
        GDALEnvironment.setCacheBytes(options.gdalCacheBytes)
        var sources = [PreparedSource]()
        var pyramids = [SourcePyramid]()
        let scratch = options.scratchDirectory ?? URL(fileURLWithPath: options.output).deletingLastPathComponent().path
        let drawings = RenderedPage.Drawings()
        for (i, info) in infos.enumerated() {
            progress(BuildProgress(phase: .decoding, done: i, total: infos.count, stored: 0, elapsed: Date().timeIntervalSince(start)))
            let layer = options.layers[plan.layerOf[i]]
            let style = LayerStyle(resampling: layer.resampling ?? options.resampling, opacity: layer.opacity,
                                   layer: plan.layerOf[i])
            let (source, pyramid) = try SourceLoader.prepare(info, style: style, memoryBudget: budget, memoryLimit: options.memoryLimit,
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
            let mine = sources.indices.filter { band.layers.contains(plan.layerOf[$0]) }.map { sources[$0] }
            if plan.bands.count > 1 {
                logger.info("zooms \(band.zooms.lowerBound)-\(band.zooms.upperBound): layers \(band.layers.map { options.layers[$0].name }.joined(separator: ", ")), \(mine.count) source(s)")
            }
            let offset = before
            let done = plan.units[b].filter { finished.contains(BuildUnit(band: b, tile: $0)) }
            resumedTiles += done.reduce(0) { $0 + Self.subtreeCount($1, ranges: plan.ranges[b], maxZoom: band.zooms.upperBound) }
            let doneBefore = resumedTiles
            var rendering = TileRendering(ranges: plan.ranges[b], zooms: band.zooms, sources: mine, options: options, band: b,
                                          unitZoom: plan.unitZooms[b], units: plan.units[b].filter { !finished.contains(BuildUnit(band: b, tile: $0)) },
                                          finished: done, buildsUpperLevels: options.shard == nil)
            rendering.update = scopes?[b]
            rendering.trails = trails
            rendering.hooks = hooks
            rendering.shading = shading
            let outcome = rendering.run(writer: writer, recordedRoot: { unit throws(BuildError) in
                let data: [UInt8]?
                do throws(TileStoreError) { data = try writer.unitRoot(BuildUnit(band: b, tile: unit)) } catch { throw .store(error) }
                return try Self.decodeRoot(data, unit: unit)
            }) { done, stored in
                progress(BuildProgress(phase: .rendering, done: offset + done, total: plan.total, stored: stored,
                                       elapsed: Date().timeIntervalSince(renderStart), drawing: drawings.current, doneBefore: doneBefore))
            }
            if let failure = outcome { throw failure }
            before += plan.bandTotals[b]
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
    func recordedLayers(_ plan: Plan) -> [BundleLayer] {
        let trails = options.trails.map { t in
            let z = t.zooms ?? options.minZoom...options.maxZoom
            return BundleLayer(name: t.name, title: t.title, kind: .overlay, minzoom: z.lowerBound, maxzoom: z.upperBound,
                               sources: t.sources.map { URL(fileURLWithPath: $0).lastPathComponent })
        }
        return options.layers.enumerated().map { l, layer in
            let z = layer.zooms(inBuild: options.minZoom...options.maxZoom)
            let names = plan.sources.indices.filter { plan.layerOf[$0] == l }
                .map { URL(fileURLWithPath: plan.sources[$0].path).lastPathComponent }
            return BundleLayer(name: layer.name, title: layer.title, kind: layer.kind, minzoom: z.lowerBound,
                               maxzoom: z.upperBound, sources: names)
        } + (trails.map { [$0] } ?? [])
    }

    private func metadata(_ plan: Plan) -> BundleMetadata {
        var bounds = plan.bounds
        let infos = plan.sources
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
