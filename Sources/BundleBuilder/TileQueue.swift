import Foundation
import TileGeometry
import TileStore

/// What the rendering threads hand the writer: an encoded tile, or the news that a unit is
/// finished (after all of its tiles, which the same thread queued before it).
enum QueuedItem {
    case tile(TileID, [UInt8])
    case unitDone(BuildUnitRecord)
    /// An update keeps the old bundle's tile (`subtree`: and every tile below it).
    case keep(TileID, subtree: Bool)
}

/// A bounded hand-off of encoded tiles from the rendering threads to the single writer.
/// Producers block when it is full, so memory stays bounded if the writer falls behind. Items
/// leave in the order they came.
final class TileQueue: @unchecked Sendable {
    typealias Item = QueuedItem
    private let condition = NSCondition()
    private var items: [Item] = []
    private let capacity: Int
    private var producers: Int
    private var cancelled = false

    init(capacity: Int, producers: Int) {
        self.capacity = capacity
        self.producers = producers
    }

    /// Adds a tile, waiting while the queue is full. Returns false once cancelled.
    func push(_ item: Item) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while items.count >= capacity && !cancelled { condition.wait() }
        guard !cancelled else { return false }
        items.append(item)
        condition.broadcast()
        return true
    }

    /// One producer has finished.
    func producerFinished() {
        condition.lock()
        producers -= 1
        condition.broadcast()
        condition.unlock()
    }

    /// Stops producers (after an error in the writer).
    func cancel() {
        condition.lock()
        cancelled = true
        condition.broadcast()
        condition.unlock()
    }

    var isCancelled: Bool {
        condition.lock()
        defer { condition.unlock() }
        return cancelled
    }

    /// Takes up to `max` tiles, waiting up to `timeout` seconds for some; returns nil when all
    /// producers are done and the queue is empty.
    func pop(max: Int, timeout: TimeInterval) -> [Item]? {
        condition.lock()
        defer { condition.unlock() }
        if items.isEmpty && producers > 0 && !cancelled {
            _ = condition.wait(until: Date(timeIntervalSinceNow: timeout))
        }
        if items.isEmpty { return (producers > 0 && !cancelled) ? [] : nil }
        let n = min(max, items.count)
        let batch = Array(items.prefix(n))
        items.removeFirst(n)
        condition.broadcast()
        return batch
    }

    /// The writer's loop: takes batches of up to 256 items until every producer is done (or the
    /// queue is cancelled and empty), handing each non-empty one to `write`, and calls `report`
    /// about every 100 ms (also while the producers make nothing).
    func drain(_ write: ([Item]) -> Void, report: () -> Void) {
        var lastReport = Date.distantPast
        while let batch = pop(max: 256, timeout: 0.1) {
            if !batch.isEmpty { write(batch) }
            if Date().timeIntervalSince(lastReport) >= 0.1 {
                lastReport = Date()
                report()
            }
        }
    }
}
