import Foundation
import Raster
import SourceReaders
import Synchronization
import Terrain
import TileGeometry
import TileStore

/// How a terrain build renders a batch of blocks: on up to `threads` threads, each with DEMs of
/// its own open, every block's tiles drawn (or encoded as terrain tiles) from elevations warped
/// from the DEMs or, below the pyramid's top, taken from the finer zoom's means.
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

    /// The tiles of `batch`, in no particular order. `level`: the zoom's elevations when made
    /// from the finer zoom's (else they are warped from the DEMs with `sampling`); `feeds`: the
    /// coarser zoom's level, filled from the warped elevations.
    func render(
        _ batch: [TerrainBlock], level: TerrainLevel?, feeds: TerrainLevel?, sampling: DEMReader.Sampling
    ) throws(BuildError) -> [(tile: TileID, data: [UInt8])] {
        let made = Mutex<[(tile: TileID, data: [UInt8])]>([])
        let failure = Mutex<BuildError?>(nil)
        let next = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: min(threads, batch.count)) { _ in
            let readers = pool.take()
            defer { pool.give(readers) }
            var mine = [(tile: TileID, data: [UInt8])]()
            while failure.withLock({ $0 == nil }) {
                let k = next.add(1, ordering: .relaxed).oldValue
                guard k < batch.count else { break }
                do throws(BuildError) {
                    let block = batch[k]
                    let grid: (TileID) -> ElevationGrid
                    if let level {
                        grid = level.grid
                    } else {
                        guard
                            let elevations = try block.elevations(
                                size: size, border: border, dems: dems, sampling: sampling, pool: pool, readers: readers)
                        else { continue }
                        feeds?.fill(from: elevations)
                        grid = elevations.grid
                    }
                    try tiles(of: block, grid: grid, into: &mine)
                } catch {
                    failure.withLock { if $0 == nil { $0 = error } }
                    return
                }
            }
            made.withLock { $0 += mine }
        }
        if let error = failure.withLock({ $0 }) { throw error }
        return made.withLock { $0 }
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
