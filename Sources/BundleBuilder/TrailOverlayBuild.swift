import Foundation
import Logging
import Raster
import TileGeometry
import TileStore

/// A build with trails and no raster layer: a transparent overlay of the trails over their
/// extent, every zoom drawn from the lines (tiles with no trail pixel are left out), and the
/// trail records stored beside the tiles.
struct TrailOverlayBuild {
    let options: BuildOptions
    let trails: PreparedTrails
    let logger: Logger

    func run(progress: @escaping @Sendable (BuildProgress) -> Void) throws(BuildError) -> BuildReport {
        let start = Date()
        let plan = try TrailOverlayPlan(options: options, trails: trails)
        let zooms = plan.zooms, total = plan.total
        var o = options
        (o.minZoom, o.maxZoom) = (zooms.lowerBound, zooms.upperBound)
        let fingerprint = BuildFingerprint(options: o, sources: [], trails: trails.digest)
        logger.info(
            """
            building \(options.output): \(trails.records.count) trail(s), zoom \(zooms.lowerBound)-\(zooms.upperBound), \(total) tiles to \
            consider
            """
        )
        let writer: BundleWriter
        do { (writer, _) = try BundleWriter.resumable(path: options.output, fingerprint: fingerprint.full) } catch { throw .store(error) }
        do throws(BuildError) {
            try render(plan, settings: o, into: writer) { done, stored in
                progress(
                    BuildProgress(phase: .rendering, done: done, total: total, stored: stored, elapsed: Date().timeIntervalSince(start)))
            }
            progress(
                BuildProgress(
                    phase: .finishing, done: total, total: total, stored: writer.stats.tiles, elapsed: Date().timeIntervalSince(start)))
            let stats: BundleWriteStats
            do {
                stats = try writer.finish(
                    metadata: metadata(zooms),
                    record: [
                        BuildRecord.settingsKey: fingerprint.settings,
                        BuildRecord.tileSettingsKey: fingerprint.tileSettings,
                        BuildRecord.tileSettingsJSONKey: fingerprint.tileSettingsJSON
                    ])
            } catch { throw .store(error) }
            try trails.store(in: options.output)
            return BuildReport(
                output: options.output, tilesConsidered: total, tilesStored: stats.tiles, uniqueImages: stats.uniqueImages,
                bytesStored: stats.storedBytes, tileBytes: stats.tileBytes, tilesPerZoom: stats.tilesPerZoom,
                seconds: Date().timeIntervalSince(start), spilledSources: 0, start: .fresh, update: nil, zooms: zooms)
        } catch {
            writer.abandon()
            throw error
        }
    }

    /// Draws every tile of `plan` on the build's threads, a job at a time in turn (`TileJobs`),
    /// and adds those with a trail pixel to the bundle.
    private func render(
        _ plan: TrailOverlayPlan, settings o: BuildOptions, into writer: BundleWriter,
        progress: (_ done: Int, _ stored: Int) -> Void
    ) throws(BuildError) {
        let encoding = o.tileEncoding, n = o.tileSize, trails = self.trails
        try TileJobs(count: plan.jobs, threads: max(1, o.renderThreads)).run(into: writer, progress: progress) {
            context throws(BuildError) in
            while let k = context.next() {
                let tiles = plan.tiles(ofJob: k)
                for t in tiles {
                    let image = try trails.drawn(over: RGBAImage(width: n, height: n), tile: t, tileSize: n)
                    guard !image.isFullyTransparent else { continue }
                    let data: [UInt8]
                    do throws(TileCodecError) { data = try encoding.encode(image) } catch { throw .encode(tile: t, error) }
                    try context.put(t, data)
                }
                context.considered(tiles.count)
            }
        }
    }

    private func metadata(_ zooms: ClosedRange<Int>) -> BundleMetadata {
        let b = trails.bounds
        var meta = BundleMetadata(name: options.name, bounds: b, minZoom: zooms.lowerBound, maxZoom: zooms.upperBound)
        meta.center = ((b.west + b.east) / 2, (b.south + b.north) / 2, (zooms.lowerBound + zooms.upperBound) / 2)
        meta.description = options.description.isEmpty ? "\(options.name) trails" : options.description
        meta.attribution = options.attribution
        meta.version = options.version
        meta.type = "overlay"
        meta.extra[BundleRole.metadataKey] = BundleRole.trails.rawValue
        let file = URL(fileURLWithPath: options.output).deletingPathExtension().lastPathComponent
        meta.extra["trailmap:region"] = options.regionID ?? file
        meta.extra["trailmap:builder"] = BundleBuilder.version
        meta.extra["trailmap:sources"] = trails.options.sources.map { URL(fileURLWithPath: $0).lastPathComponent }.joined(separator: ",")
        meta.extra["trailmap:tilesize"] = String(options.tileSize)
        meta.format = options.format.rawValue
        meta.extra[BundleLayer.metadataKey] = BundleLayer.encode([
            BundleLayer(
                name: trails.options.name, title: trails.options.title, kind: .overlay, minzoom: zooms.lowerBound,
                maxzoom: zooms.upperBound, sources: trails.options.sources.map { URL(fileURLWithPath: $0).lastPathComponent })
        ])
        return meta
    }
}
