import Foundation
import Raster
import TileGeometry

/// A finished tile as the zoom above sees it: its pixels (nil: transparent), or, in an update, a
/// tile kept from the bundle being updated (copied as it is; decoded only if a parent that
/// changes needs its pixels).
enum FinishedTile {
    case image(RGBAImage?)
    case kept(TileID)
}

/// What `UpperLevels` hands on for a parent: pixels to encode, or "keep the old tile".
enum UpperTile {
    case made(RGBAImage)
    case kept
}

/// Tiles above the unit zoom, each made from its four children as they arrive from the units
/// (in any order, from any thread). Units come in Morton order, so few groups wait at once.
/// In an update, a parent no changed source touches is kept from the old bundle.
final class UpperLevels: @unchecked Sendable {
    typealias Emit = (TileID, UpperTile) throws(BuildError) -> Void
    private struct Group {
        var children: [FinishedTile] = [.image(nil), .image(nil), .image(nil), .image(nil)]
        var arrived = 0
    }

    /// Per waiting parent, the children that will arrive.
    private let expectedChildren: [TileID: Int]
    private let minZoom: Int
    private let unitZoom: Int
    private let tileSize: Int
    /// Update builds: whether a tile is untouched by every changed source, and an old tile's pixels.
    private let update: UpdateScope?
    private let lock = NSLock()
    private var pending: [TileID: Group] = [:]
    private var produced = 0

    /// `units`: every unit of the band, including those an earlier run finished.
    init(units: [TileID], minZoom: Int, unitZoom: Int, tileSize: Int, update: UpdateScope? = nil) {
        expectedChildren = BuildUnits.expectedChildren(units: units, unitZoom: unitZoom, minZoom: minZoom)
        self.minZoom = minZoom
        self.unitZoom = unitZoom
        self.tileSize = tileSize
        self.update = update
    }

    /// Children of `parent` with units below them: the arrivals that complete it.
    private func expected(_ parent: TileID) -> Int { expectedChildren[parent] ?? 4 }

    /// Records a finished tile at or above the unit zoom; completes its parent when it was the
    /// last child, emitting the parent and going on up.
    func add(_ tile: TileID, _ finished: FinishedTile, emit: Emit) throws(BuildError) {
        var tile = tile, finished = finished
        while tile.z > minZoom, let parent = tile.parent {
            let slot = (tile.y & 1) * 2 + (tile.x & 1)
            let complete: Group? = lock.withLock {
                var group = pending[parent] ?? Group()
                group.children[slot] = finished
                group.arrived += 1
                if group.arrived >= expected(parent) {
                    pending[parent] = nil
                    return group
                }
                pending[parent] = group
                return nil
            }
            guard let group = complete else { return }
            finished = try make(parent, group, emit: emit)
            lock.withLock { produced += 1 }
            tile = parent
        }
    }

    /// The parent of a complete (or, when flushing, incomplete) group, emitted.
    private func make(_ parent: TileID, _ group: Group, emit: Emit) throws(BuildError) -> FinishedTile {
        if let update, update.isUnchanged(parent) {
            try emit(parent, .kept)
            return .kept(parent)
        }
        var images = [RGBAImage?]()
        for child in group.children {
            switch child {
            case let .image(image): images.append(image)
            case let .kept(t): images.append(try update?.oldImage(t) ?? nil)
            }
        }
        var made = TileDownsampler.parent(of: images, tileSize: tileSize)
        if let made { try emit(parent, .made(made)) }
        made?.roundingAlternates = nil // encoded: the level above needs only the pixels
        update?.countRendered(1)
        return .image(made)
    }

    /// Tiles made since the last call (for progress).
    func takeProduced() -> Int {
        lock.withLock {
            defer { produced = 0 }
            return produced
        }
    }

    /// Finishes every group still waiting, lowest level first, with the children it has.
    func flush(emit: Emit) throws(BuildError) {
        while let tile = lock.withLock({ pending.keys.max { $0.z < $1.z } }) {
            let group = lock.withLock { pending.removeValue(forKey: tile)! }
            let made = try make(tile, group, emit: emit)
            lock.withLock { produced += 1 }
            if tile.z > minZoom, tile.z < unitZoom { try add(tile, made, emit: emit) }
        }
    }
}
