import Foundation
import Logging
import Raster
import Synchronization
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
    /// Tiles rendered between two writes.
    static let batchSize = 2048

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
            var done = 0
            for range in ranges {
                var batch = [TileID]()
                batch.reserveCapacity(Self.batchSize)
                func flush() throws(BuildError) {
                    try writeBatch(batch, settings: o, to: writer)
                    done += batch.count
                    batch.removeAll(keepingCapacity: true)
                    progress(
                        BuildProgress(
                            phase: .rendering, done: done, total: total, stored: writer.stats.tiles,
                            elapsed: Date().timeIntervalSince(start)))
                }
                for t in range {
                    batch.append(t)
                    if batch.count == Self.batchSize { try flush() }
                }
                if !batch.isEmpty { try flush() }
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

    /// Draws a batch of tiles on the build's threads and adds those with a trail pixel to the
    /// bundle, in row order.
    private func writeBatch(_ tiles: [TileID], settings o: BuildOptions, to writer: BundleWriter) throws(BuildError) {
        let encoding = o.tileEncoding, n = o.tileSize, threads = max(1, o.renderThreads), trails = self.trails
        let made = Mutex<[(tile: TileID, data: [UInt8])]>([])
        let failure = Mutex<BuildError?>(nil)
        let chunk = (tiles.count + threads - 1) / threads
        DispatchQueue.concurrentPerform(iterations: threads) { i in
            var mine = [(tile: TileID, data: [UInt8])]()
            for t in tiles[min(tiles.count, i * chunk)..<min(tiles.count, (i + 1) * chunk)] {
                do throws(BuildError) {
                    let image = try trails.drawn(over: RGBAImage(width: n, height: n), tile: t, tileSize: n)
                    guard !image.isFullyTransparent else { continue }
                    do throws(TileCodecError) { mine.append((t, try encoding.encode(image))) } catch {
                        throw .encode(tile: t, error)
                    }
                } catch {
                    failure.withLock { if $0 == nil { $0 = error } }
                    return
                }
            }
            made.withLock { $0 += mine }
        }
        if let error = failure.withLock({ $0 }) { throw error }
        do { try writer.add(made.withLock { $0 }.sorted { ($0.tile.y, $0.tile.x) < ($1.tile.y, $1.tile.x) }) } catch {
            throw .store(error)
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
