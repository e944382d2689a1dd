import Foundation
import Raster
import SourceReaders
import Synchronization
import Terrain
import TileGeometry
import TileStore

/// One block of a terrain pass: its elevations taken from `level` (made from the finer zoom's
/// means) or, without one, warped from the DEMs with `sampling`; `feeds`: the coarser zoom's
/// level, filled from the warped elevations.
struct TerrainJob {
    let block: TerrainBlock
    let level: TerrainLevel?
    let feeds: TerrainLevel?
    let sampling: DEMReader.Sampling
    /// The job's work relative to the pass's other jobs (the pass starts the largest first).
    let cost: Double
}

/// How a terrain build renders a pass of blocks: on up to `threads` threads, each with DEMs of
/// its own open, every block's tiles drawn (or encoded as terrain tiles) and handed to the
/// calling thread, which writes them (`TileQueue`, bounded) while the threads go on.
struct TerrainRenderer {
    let layer: TerrainLayer
    let pool: DEMReaderPool
    let dems: [TerrainSources.DEM]
    let drawing: TerrainDrawing
    /// The trails to draw over the tiles, with the build's zooms.
    let trails: (PreparedTrails, ClosedRange<Int>)?
    let encoding: TileEncoding
    /// Tile size in pixels.
    let size: Int
    /// Pixels of elevation around each tile (for the hillshade's and contours' neighbours).
    let border: Int
    let threads: Int

    /// Renders `jobs`, the largest first, and writes their tiles with `writer` (each batch in one
    /// transaction, rows in order); returns when all are written. `progress` (on the calling
    /// thread, about every 100 ms and at the end) gets the tiles of the jobs finished and the
    /// tiles stored. The first failure stops the threads and is thrown once they have stopped.
    func render(
        _ jobs: [TerrainJob], into writer: BundleWriter, progress: (_ done: Int, _ stored: Int) -> Void
    ) throws(BuildError) {
        let workers = min(threads, jobs.count)
        guard workers > 0 else { return }
        let ordered = jobs.sorted { $0.cost > $1.cost }
        let queue = TileQueue(capacity: 16 * threads, producers: workers)
        let failure = Mutex<BuildError?>(nil)
        let next = Atomic<Int>(0), done = Atomic<Int>(0)
        let stopped = DispatchGroup()
        let fail = { @Sendable (error: BuildError) in
            failure.withLock { if $0 == nil { $0 = error } }
            queue.cancel()
        }
        for _ in 0..<workers {
            stopped.enter()
            let thread = Thread { [self] in
                defer {
                    queue.producerFinished()
                    stopped.leave()
                }
                let readers = pool.take()
                defer { pool.give(readers) }
                while !queue.isCancelled {
                    let k = next.add(1, ordering: .relaxed).oldValue
                    guard k < ordered.count else { break }
                    do throws(BuildError) {
                        try render(ordered[k], readers: readers, queue: queue)
                        done.add(ordered[k].block.tiles.count, ordering: .relaxed)
                    } catch {
                        fail(error)
                        return
                    }
                }
            }
            thread.stackSize = 4 << 20
            thread.start()
        }
        var lastReport = Date.distantPast
        while let batch = queue.pop(max: 256, timeout: 0.1) {
            var tiles = [(tile: TileID, data: [UInt8])]()
            for case let .tile(t, data) in batch { tiles.append((t, data)) }
            if !tiles.isEmpty, failure.withLock({ $0 == nil }) {
                tiles.sort { ($0.tile.z, $0.tile.y, $0.tile.x) < ($1.tile.z, $1.tile.y, $1.tile.x) }
                do throws(TileStoreError) { try writer.add(tiles) } catch { fail(.store(error)) }
            }
            if Date().timeIntervalSince(lastReport) >= 0.1 {
                lastReport = Date()
                progress(done.load(ordering: .relaxed), writer.stats.tiles)
            }
        }
        stopped.wait()
        if let error = failure.withLock({ $0 }) { throw error }
        progress(done.load(ordering: .relaxed), writer.stats.tiles)
    }

    /// Renders one job's tiles and queues them; a block no DEM has elevations under is skipped.
    private func render(_ job: TerrainJob, readers: DEMReaderPool.Readers, queue: TileQueue) throws(BuildError) {
        let grid: (TileID) -> ElevationGrid
        if let level = job.level {
            grid = level.grid
        } else {
            guard
                let elevations = try job.block.elevations(
                    size: size, border: border, dems: dems, sampling: job.sampling, pool: pool, readers: readers)
            else { return }
            job.feeds?.fill(from: elevations)
            grid = elevations.grid
        }
        var made = [(tile: TileID, data: [UInt8])]()
        try tiles(of: job.block, grid: grid, into: &made)
        for (t, data) in made {
            guard queue.push(.tile(t, data)) else { throw .cancelled }
        }
    }

    /// Draws (or encodes as terrain tiles) a block's tiles from their elevations, with the trails
    /// over them at the zooms they are drawn; a tile no DEM touches (its border included) or with
    /// nothing to draw is left out.
    private func tiles(
        of block: TerrainBlock, grid: (TileID) -> ElevationGrid, into made: inout [(tile: TileID, data: [UInt8])]
    ) throws(BuildError) {
        for t in block.tiles {
            let padded = block.padded(t.mercatorBounds, size: size, border: border)
            guard dems.contains(where: { $0.mercatorParts.contains { $0.intersects(padded) } }) else { continue }
            let withTrails = trails.map { $0.0.draws(t.z, build: $0.1) } ?? false
            // A hillshade alone is grey: encoded as such, not as RGBA.
            if drawing.isGray, layer.contours?.levels(zoom: t.z) == nil, !withTrails {
                guard let image = drawing.grayImage(grid(t), tile: t) else { continue }
                do throws(TileCodecError) { made.append((t, try encoding.encode(image))) } catch { throw .encode(tile: t, error) }
                continue
            }
            guard var image = try drawing.image(grid(t), tile: t, contours: layer.contours) else { continue }
            if let trails, withTrails { image = try trails.0.drawn(over: image, tile: t, tileSize: size) }
            do throws(TileCodecError) { made.append((t, try encoding.encode(image))) } catch { throw .encode(tile: t, error) }
        }
    }
}
