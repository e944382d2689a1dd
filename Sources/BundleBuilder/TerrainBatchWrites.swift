import Foundation
import Synchronization
import TileGeometry
import TileStore

/// Writes a terrain build's batches in order on a thread of their own, so that the next batch
/// renders while one is written. At most `depth` batches wait to be written (their encoded tiles
/// held in memory); a failed write stops the rest and is thrown by the next `add` or by `drain`.
final class TerrainBatchWrites: Sendable {
    private let writer: BundleWriter
    private let queue = DispatchQueue(label: "trailmap.terrain.writes")
    private let slots: DispatchSemaphore
    private let failure = Mutex<BuildError?>(nil)

    init(writer: BundleWriter, depth: Int = 2) {
        self.writer = writer
        slots = DispatchSemaphore(value: max(1, depth))
    }

    /// Queues `tiles` (written row by row); `written` is called on the writing thread after them,
    /// with the tiles stored so far. Waits while `depth` batches are queued.
    func add(_ tiles: [(tile: TileID, data: [UInt8])], written: @escaping @Sendable (Int) -> Void) throws(BuildError) {
        if let error = failure.withLock({ $0 }) { throw error }
        slots.wait()
        queue.async { [self] in
            defer { slots.signal() }
            guard failure.withLock({ $0 == nil }) else { return }
            do throws(TileStoreError) {
                try writer.add(tiles.sorted { ($0.tile.y, $0.tile.x) < ($1.tile.y, $1.tile.x) })
                written(writer.stats.tiles)
            } catch {
                failure.withLock { $0 = .store(error) }
            }
        }
    }

    /// Waits until every queued batch is written; throws the first failure.
    func drain() throws(BuildError) {
        queue.sync {}
        if let error = failure.withLock({ $0 }) { throw error }
    }
}
