import Foundation
import Raster
import Synchronization
import TileGeometry
import TileStore

/// Encodes the tiles a build makes: a terrain layer's hillshade blended in and the trails drawn
/// over them when the build has them (the levels above are made from the pixels without either:
/// each zoom is shaded and draws its own lines).
struct TileEncoder: Sendable {
    let encoding: TileEncoding
    let tileSize: Int
    let trails: PreparedTrails?
    let shading: TerrainShading?
    /// The build's zooms (the trails' zooms default to them).
    let buildZooms: ClosedRange<Int>

    /// Encodes a made tile, shaded and with its trails drawn when it has any.
    func encode(_ tile: TileID, _ image: RGBAImage) throws(BuildError) -> [UInt8] {
        var out = image
        if let shading { out = try shading.shaded(out, tile: tile) }
        if let trails, trails.draws(tile.z, build: buildZooms) { out = try trails.drawn(over: out, tile: tile, tileSize: tileSize) }
        do { return try encoding.encode(out) } catch { throw .encode(tile: tile, error) }
    }
}

/// What a band's rendering threads and its writer share while the band renders: the queue to the
/// writer, the count of tiles done (for progress), the first error, the encoder, the levels above
/// the unit zoom (nil for a shard part) and an update's scope.
final class BandRun: Sendable {
    let band: BandPlan
    let queue: TileQueue
    let encoder: TileEncoder
    let upper: UpperLevels?
    let update: UpdateScope?
    /// Tiles done so far, rendered, skipped or resumed.
    let done = Atomic<Int>(0)
    private let failure = Mutex<BuildError?>(nil)

    init(band: BandPlan, queue: TileQueue, encoder: TileEncoder, upper: UpperLevels?, update: UpdateScope?) {
        self.band = band
        self.queue = queue
        self.encoder = encoder
        self.upper = upper
        self.update = update
    }

    /// Keeps the first error and stops the threads.
    func fail(_ error: BuildError) {
        failure.withLock { if $0 == nil { $0 = error } }
        queue.cancel()
    }

    /// The first error, nil when all went well so far.
    var firstError: BuildError? { failure.withLock { $0 } }

    /// Counts `n` tiles done.
    func count(_ n: Int) { done.add(n, ordering: .relaxed) }

    /// Counts the tiles of the band in the subtree of `t` as done (a subtree skipped or resumed).
    func countSubtree(_ t: TileID) { count(band.subtreeCount(t)) }

    /// Encodes and queues a tile, or queues the copy of a kept one.
    func emit(_ tile: TileID, _ made: UpperTile) throws(BuildError) {
        switch made {
        case let .made(image):
            guard queue.push(.tile(tile, try encoder.encode(tile, image))) else { throw .cancelled }
        case .kept:
            guard queue.push(.keep(tile, subtree: false)) else { throw .cancelled }
        }
    }

    /// The pixels of a finished tile (an old one's decoded).
    func pixels(_ finished: FinishedTile) throws(BuildError) -> RGBAImage? {
        switch finished {
        case let .image(image): image
        case let .kept(t): try update?.oldImage(t) ?? nil
        }
    }

    /// The ranges of a kept tile (`subtree`: and of every tile below it) inside the band's ranges.
    func keptRanges(_ t: TileID, subtree: Bool) -> [TileRange] {
        BandPlan.subtreeRanges(t, ranges: band.ranges, maxZoom: subtree ? band.zooms.upperBound : t.z)
    }
}

/// Tiles made off the queue (by the resume feeder, or when the upper levels are flushed), written
/// in one go: encoded tiles, and an update's kept tiles as ranges.
struct CollectedTiles {
    var tiles = [(tile: TileID, data: [UInt8])]()
    var kept = [TileRange]()

    /// Adds what `UpperLevels` made of `tile`, encoded.
    mutating func add(_ tile: TileID, _ made: UpperTile, in run: BandRun) throws(BuildError) {
        switch made {
        case let .made(image):
            tiles.append((tile, try run.encoder.encode(tile, image)))
        case .kept:
            // An update's untouched parent: copied by the writer.
            kept += run.keptRanges(tile, subtree: false)
        }
    }

    /// Writes the tiles, if any.
    func write(to writer: BundleWriter) throws(BuildError) {
        guard !tiles.isEmpty || !kept.isEmpty else { return }
        do { try writer.add(tiles, kept: kept) } catch { throw .store(error) }
    }
}
