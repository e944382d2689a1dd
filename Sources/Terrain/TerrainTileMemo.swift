import Synchronization
import TileGeometry

/// The decoded terrain tiles used last, absent tiles included, least recently used dropped
/// first; keyed by each set's `memoKey`, so samplers made per request can share one. Safe to
/// share between threads.
public final class TerrainTileMemo: Sendable {
    struct Key: Hashable {
        var source: String
        var tile: TileID
    }

    private struct Entry {
        var tile: ElevationTile?
        var used: UInt64
    }

    private struct State {
        var entries: [Key: Entry] = [:]
        var clock: UInt64 = 0
    }

    private let state = Mutex(State())
    let capacity: Int

    /// `capacity`: how many tiles it holds.
    public init(capacity: Int) {
        self.capacity = max(4, capacity)
    }

    /// The memo's entry for `key`: `.some(tile)` (nil: known absent), or nil when not held.
    func lookup(_ key: Key) -> ElevationTile?? {
        state.withLock { s in
            guard var e = s.entries[key] else { return nil }
            s.clock += 1
            e.used = s.clock
            s.entries[key] = e
            return .some(e.tile)
        }
    }

    func store(_ tile: ElevationTile?, for key: Key) {
        state.withLock { s in
            s.clock += 1
            s.entries[key] = Entry(tile: tile, used: s.clock)
            if s.entries.count > capacity, let oldest = s.entries.min(by: { $0.value.used < $1.value.used })?.key {
                s.entries[oldest] = nil
            }
        }
    }
}
