import Foundation
import Raster
import SourceReaders
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

    /// Renders `jobs`, the largest first, and writes their tiles with `writer` (`TileJobs`);
    /// returns when all are written. `progress` gets the tiles of the jobs finished and the tiles
    /// stored. The first failure stops the threads and is thrown once they have stopped.
    func render(
        _ jobs: [TerrainJob], into writer: BundleWriter, progress: (_ done: Int, _ stored: Int) -> Void
    ) throws(BuildError) {
        let ordered = jobs.sorted { $0.cost > $1.cost }
        try TileJobs(count: ordered.count, threads: threads).run(into: writer, progress: progress) { [self] context throws(BuildError) in
            let readers = pool.take()
            defer { pool.give(readers) }
            while let k = context.next() {
                try render(ordered[k], readers: readers, context: context)
                context.considered(ordered[k].block.tiles.count)
            }
        }
    }

    /// Renders one job's tiles and queues them; a block no DEM has elevations under is skipped.
    private func render(_ job: TerrainJob, readers: DEMReaderPool.Readers, context: TileJobs.Context) throws(BuildError) {
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
        try tiles(of: job.block, grid: grid) { t, data throws(BuildError) in try context.put(t, data) }
    }

    /// Draws (or encodes as terrain tiles) a block's tiles from their elevations, with the trails
    /// over them at the zooms they are drawn; a tile no DEM touches (its border included) or with
    /// nothing to draw is left out. Each tile goes to `emit` as soon as it is encoded.
    private func tiles(
        of block: TerrainBlock, grid: (TileID) -> ElevationGrid, emit: (TileID, [UInt8]) throws(BuildError) -> Void
    ) throws(BuildError) {
        for t in block.tiles {
            let padded = block.padded(t.mercatorBounds, size: size, border: border)
            guard dems.contains(where: { $0.mercatorParts.contains { $0.intersects(padded) } }) else { continue }
            let withTrails = trails.map { $0.0.draws(t.z, build: $0.1) } ?? false
            // A hillshade alone is grey: encoded as such, not as RGBA.
            if drawing.isGray, layer.contours?.levels(zoom: t.z) == nil, !withTrails {
                guard let image = drawing.grayImage(grid(t), tile: t) else { continue }
                let data: [UInt8]
                do throws(TileCodecError) { data = try encoding.encode(image) } catch { throw .encode(tile: t, error) }
                try emit(t, data)
                continue
            }
            guard var image = try drawing.image(grid(t), tile: t, contours: layer.contours) else { continue }
            if let trails, withTrails { image = try trails.0.drawn(over: image, tile: t, tileSize: size) }
            let data: [UInt8]
            do throws(TileCodecError) { data = try encoding.encode(image) } catch { throw .encode(tile: t, error) }
            try emit(t, data)
        }
    }
}
