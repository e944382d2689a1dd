import Foundation
import Logging
import Raster
import SourceReaders
import Synchronization
import Terrain
import Testing
import TileGeometry
import TileStore
@testable import BundleBuilder
import TrailMapTestSupport

/// A pass of terrain blocks rendered on threads that queue their tiles for the calling thread to
/// write: every tile arrives once, whatever the threads, and a failed write stops it.
@Suite(.computeThreads) struct TerrainRendererTests {
    let fx = TerrainFixture()

    /// The cone's hillshade over a 4×4 range at zoom 12.
    private func setting(threads: Int) throws -> (TerrainRenderer, TileRange) {
        let dem = try fx.cone()
        var layer = TerrainLayer(sources: [dem])
        layer.hillshade = HillshadeOptions()
        let sources = try TerrainSources.read(layer, logger: Logger(label: "test"))
        let renderer = TerrainRenderer(
            layer: layer, pool: DEMReaderPool(paths: [dem], crs: nil, unit: nil), dems: sources.dems,
            drawing: TerrainDrawing(layer: layer, ramp: nil), trails: nil,
            encoding: TileEncoding(png: PNGEncodingOptions(deflater: .libdeflate, compressionLevel: 1, effort: .fast)), size: 256,
            border: 1, threads: threads)
        let centre = WebMercator.tile(lon: -105.515, lat: 39.983, zoom: 12)
        return (renderer, TileRange(z: 12, minX: centre.x - 2, maxX: centre.x + 1, minY: centre.y - 2, maxY: centre.y + 1))
    }

    private func jobs(_ range: TileRange, side: Int) -> [TerrainJob] {
        TerrainBlock.blocks(of: range, side: side).map {
            TerrainJob(block: $0, level: nil, feeds: nil, sampling: .bilinear, cost: Double($0.tiles.count))
        }
    }

    /// One thread taking the blocks in turn against two taking them as they come: the same tiles.
    @Test func everyTileIsWrittenOnceWhateverTheThreads() throws {
        let (one, range) = try setting(threads: 1)
        let wholePath = fx.dir.file("one.mbtiles")
        let whole = try BundleWriter(path: wholePath)
        try one.render(jobs(range, side: 1), into: whole) { _, _ in }
        _ = try whole.finish(metadata: BundleMetadata(name: "w", bounds: .world, minZoom: 12, maxZoom: 12))
        let expected = try TestBundle.tiles(wholePath)
        #expect(expected.count >= 4, "the cone shades some of the range's tiles")

        let (two, _) = try setting(threads: 2)
        let splitPath = fx.dir.file("split.mbtiles")
        let split = try BundleWriter(path: splitPath)
        let reports = Mutex<[(done: Int, stored: Int)]>([])
        try two.render(jobs(range, side: 1), into: split) { done, stored in reports.withLock { $0.append((done, stored)) } }
        let last = try #require(reports.withLock { $0.last })
        #expect(last.done == range.count, "the final report counts every block's tiles")
        #expect(last.stored == expected.count)
        _ = try split.finish(metadata: BundleMetadata(name: "s", bounds: .world, minZoom: 12, maxZoom: 12))
        #expect(try TestBundle.tiles(splitPath) == expected)
    }

    @Test func aFailedWriteStopsThePassAndIsThrown() throws {
        let (renderer, range) = try setting(threads: 2)
        let writer = try BundleWriter(path: fx.dir.file("closed.mbtiles"))
        writer.abandon()
        #expect {
            try renderer.render(jobs(range, side: 1), into: writer) { _, _ in }
        } throws: { error in
            guard case .store = error as? BuildError else { return false }
            return true
        }
    }
}
