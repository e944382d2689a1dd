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

    /// The highest zoom drawn when the build names none.
    static let defaultMaxZoom = 14
    /// Tiles a thread takes at a time.
    static let tilesPerJob = 64

    /// The build's zooms: those given, else from the zoom at which the trails fit in one tile to
    /// `defaultMaxZoom`.
    var zooms: ClosedRange<Int> {
        let m = trails.bounds.mercator
        let fit = ZoomChoice.zoom(fitting: m.maxX - m.minX, m.maxY - m.minY)
        let lo = options.zoomsFromSources.contains(.min) ? min(fit, Self.defaultMaxZoom) : options.minZoom
        let hi = options.zoomsFromSources.contains(.max) ? max(lo, Self.defaultMaxZoom) : options.maxZoom
        return lo...max(lo, hi)
    }

    func run(progress: @escaping @Sendable (BuildProgress) -> Void) throws(BuildError) -> BuildReport {
        let start = Date()
        guard options.shard == nil else { throw .trailsOverlayNotSharded }
        let zooms = self.zooms
        guard zooms.upperBound <= TileID.maxZoom else { throw .zoomTooHigh(zooms.upperBound) }
        var o = options
        (o.minZoom, o.maxZoom) = (zooms.lowerBound, zooms.upperBound)
        let fingerprint = BuildFingerprint(options: o, sources: [], trails: trails.digest)
        let ranges = tileRanges(zooms)
        let total = ranges.reduce(0) { $0 + $1.count }
        guard total <= 50_000_000 else { throw .tooManyTiles(count: total, maxZoom: zooms.upperBound) }
        logger.info(
            """
            building \(options.output): \(trails.records.count) trail(s), zoom \(zooms.lowerBound)-\(zooms.upperBound), \(total) tiles to \
            consider
            """
        )
        let writer: BundleWriter
        do { (writer, _) = try BundleWriter.resumable(path: options.output, fingerprint: fingerprint.full) } catch { throw .store(error) }
        do throws(BuildError) {
            try render(ranges, settings: o, into: writer) { done, stored in
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

    /// Each drawn zoom's tiles over the trails' extent, one tile wider on every side for strokes
    /// that reach past it.
    private func tileRanges(_ zooms: ClosedRange<Int>) -> [TileRange] {
        zooms.filter { trails.draws($0, build: zooms) }.map { z in
            let r = TileRange(bounds: trails.bounds, zoom: z), last = (1 << z) - 1
            return TileRange(
                z: z, minX: max(0, r.minX - 1), maxX: min(last, r.maxX + 1), minY: max(0, r.minY - 1), maxY: min(last, r.maxY + 1))
        }
    }

    /// Draws every tile of `ranges` on the build's threads, `tilesPerJob` at a time in turn
    /// (`TileJobs`), and adds those with a trail pixel to the bundle.
    private func render(
        _ ranges: [TileRange], settings o: BuildOptions, into writer: BundleWriter, progress: (_ done: Int, _ stored: Int) -> Void
    ) throws(BuildError) {
        let encoding = o.tileEncoding, n = o.tileSize, trails = self.trails
        // The index of each range's first tile among all of them, and the total after the last.
        let starts = ranges.reduce(into: [0]) { $0.append($0.last! + $1.count) }
        let total = starts.last!, perJob = Self.tilesPerJob
        let jobs = TileJobs(count: (total + perJob - 1) / perJob, threads: max(1, o.renderThreads))
        try jobs.run(into: writer, progress: progress) { context throws(BuildError) in
            while let k = context.next() {
                let first = k * perJob, end = min(total, first + perJob)
                var r = starts.lastIndex { $0 <= first }!
                for g in first..<end {
                    while g >= starts[r + 1] { r += 1 }
                    let range = ranges[r], i = g - starts[r], w = range.maxX - range.minX + 1
                    let t = TileID(unchecked: range.z, range.minX + i % w, range.minY + i / w)
                    let image = try trails.drawn(over: RGBAImage(width: n, height: n), tile: t, tileSize: n)
                    guard !image.isFullyTransparent else { continue }
                    let data: [UInt8]
                    do throws(TileCodecError) { data = try encoding.encode(image) } catch { throw .encode(tile: t, error) }
                    try context.put(t, data)
                }
                context.considered(end - first)
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
