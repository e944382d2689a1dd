import Foundation
import Synchronization
import Testing
import TileGeometry
import TileStore
import TrailMapTestSupport
@testable import BundleBuilder

/// A terrain build's batches written on a thread of their own while the next renders.
@Suite(.computeThreads) struct TerrainBatchWritesTests {
    let dir = TemporaryDirectory()

    @Test func batchesAreWrittenInOrderAndAllBeforeDrainReturns() throws {
        let path = dir.file("writes.mbtiles")
        let writer = try BundleWriter(path: path)
        let writes = TerrainBatchWrites(writer: writer, depth: 2)
        let reported = Mutex<[Int]>([])
        var expected = [TileID: Data]()
        for b in 0..<6 {
            // Each batch's tiles out of order: they are written row by row.
            var batch = [(tile: TileID, data: [UInt8])]()
            for i in (0..<50).reversed() {
                let tile = TileID(z: 8, x: i, y: b)!
                let bytes = [UInt8](repeating: UInt8(b), count: 10) + withUnsafeBytes(of: i) { Array($0) }
                batch.append((tile, bytes))
                expected[tile] = Data(bytes)
            }
            try writes.add(batch) { stored in reported.withLock { $0.append(stored) } }
        }
        try writes.drain()
        #expect(reported.withLock { $0 } == (1...6).map { $0 * 50 }, "one report per batch, after it, in order")
        #expect(writer.stats.tiles == 300)
        _ = try writer.finish(metadata: BundleMetadata(name: "w", bounds: .world, minZoom: 8, maxZoom: 8))
        #expect(try TestBundle.tiles(path) == expected)
    }
}
