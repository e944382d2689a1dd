import Foundation
import Raster
import TileGeometry

/// Tiles above the unit zoom, each made from its four children as they arrive from the units
/// (in any order, from any thread). Units come in Morton order, so few groups wait at once.
final class UpperLevels: @unchecked Sendable {
    private struct Group {
        var children: [RGBAImage?] = [nil, nil, nil, nil]
        var arrived = 0
    }

    private let ranges: [TileRange]
    private let minZoom: Int
    private let unitZoom: Int
    private let tileSize: Int
    private let lock = NSLock()
    private var pending: [TileID: Group] = [:]
    private var produced = 0

    init(ranges: [TileRange], minZoom: Int, unitZoom: Int, tileSize: Int) {
        self.ranges = ranges
        self.minZoom = minZoom
        self.unitZoom = unitZoom
        self.tileSize = tileSize
    }

    /// Children of `parent` inside the range one level down: the arrivals that complete it.
    private func expected(_ parent: TileID) -> Int {
        let r = ranges[parent.z + 1 - minZoom]
        return parent.children.filter { r.contains($0) }.count
    }

    /// Records a finished tile (nil when transparent) at or above the unit zoom; completes its
    /// parent when it was the last child, emitting the parent and going on up.
    func add(_ tile: TileID, _ image: RGBAImage?, emit: (TileID, RGBAImage) throws(BuildError) -> Void) throws(BuildError) {
        var tile = tile, image = image
        while tile.z > minZoom, let parent = tile.parent {
            let slot = (tile.y & 1) * 2 + (tile.x & 1)
            let complete: Group? = lock.withLock {
                var group = pending[parent] ?? Group()
                group.children[slot] = image
                group.arrived += 1
                if group.arrived >= expected(parent) {
                    pending[parent] = nil
                    return group
                }
                pending[parent] = group
                return nil
            }
            guard let group = complete else { return }
            let made = TileDownsampler.parent(of: group.children, tileSize: tileSize)
            if let made { try emit(parent, made) }
            lock.withLock { produced += 1 }
            tile = parent
            image = made
        }
    }

    /// Tiles made since the last call (for progress).
    func takeProduced() -> Int {
        lock.withLock {
            defer { produced = 0 }
            return produced
        }
    }

    /// Finishes every group still waiting, lowest level first, with the children it has.
    func flush(emit: (TileID, RGBAImage) throws(BuildError) -> Void) throws(BuildError) {
        while let tile = lock.withLock({ pending.keys.max { $0.z < $1.z } }) {
            let group = lock.withLock { pending.removeValue(forKey: tile)! }
            let made = TileDownsampler.parent(of: group.children, tileSize: tileSize)
            if let made { try emit(tile, made) }
            lock.withLock { produced += 1 }
            if tile.z > minZoom, tile.z < unitZoom { try add(tile, made, emit: emit) }
        }
    }
}
