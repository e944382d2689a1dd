import Foundation
import TileGeometry
import TileStore

/// A shard K/N: the K-th of N disjoint parts of a build (1-based).
public struct ShardSpec: Sendable, Equatable, CustomStringConvertible {
    public let index: Int
    public let count: Int

    public init(index: Int, count: Int) throws(BuildError) {
        guard count >= 1 else { throw .invalidOption(.shardCount(count)) }
        guard (1...count).contains(index) else { throw .invalidOption(.shardIndex(index, count: count)) }
        self.index = index
        self.count = count
    }

    /// Parses `K/N`.
    public init(parsing text: String) throws(BuildError) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let k = Int(parts[0]), let n = Int(parts[1]) else {
            throw .invalidOption(.shardSyntax(text))
        }
        try self.init(index: k, count: n)
    }

    public var description: String { "\(index)/\(count)" }
}

/// How a build is cut into units (subtrees rendered by one thread, in Morton order), and which
/// units a shard renders.
enum BuildUnits {
    /// Changes when the unit zoom, the units or the shard split change: recorded in fingerprints.
    /// 2: units only where a source's footprint meets them.
    static let policyVersion = 2

    /// The zoom of a band's units: three levels above its top (64 top tiles a unit), lower when
    /// that leaves fewer than 64 units. It depends on the tile ranges only (not on threads), so a
    /// resumed build and every shard of a build cut the same units.
    static func unitZoom(ranges: [TileRange], minZoom: Int, maxZoom: Int) -> Int {
        var z = max(minZoom, maxZoom - 3)
        while z < maxZoom && ranges[z - minZoom].count < 64 { z += 1 }
        return z
    }

    /// A band's units in Morton order (neighbours render close together in time): the tiles of
    /// the range at the unit zoom that one of `footprints` (the band's sources' parts, inside the
    /// Mercator square) meets, as the renderer tests it. Where no source is (the empty middle of
    /// a build across the antimeridian, the holes and corners of a mosaic) there is no unit, so
    /// nothing is enumerated, recorded or counted there.
    static func units(ranges: [TileRange], minZoom: Int, unitZoom: Int, footprints: [GeoBounds]) -> [TileID] {
        let r = ranges[unitZoom - minZoom]
        var found = Set<TileID>()
        for f in footprints {
            // One tile of margin: the box is rounded inward by an epsilon, the test is exact.
            let m = f.mercator
            guard let box = TileRange(bounds: f, zoom: unitZoom).grown(by: 1).intersection(r) else { continue }
            for t in box where m.intersects(t.mercatorBounds) { found.insert(t) }
        }
        return found.sorted { morton($0) < morton($1) }
    }

    /// For every tile above the unit zoom that has units below it, how many of its four children
    /// have units below them (or are units): the children `UpperLevels` waits for.
    static func expectedChildren(units: some Sequence<TileID>, unitZoom: Int, minZoom: Int) -> [TileID: Int] {
        var counts = [TileID: Int]()
        var level = Set(units)
        var z = unitZoom
        while z > minZoom {
            var parents = Set<TileID>()
            for t in level {
                guard let p = t.parent else { continue }
                counts[p, default: 0] += 1
                parents.insert(p)
            }
            level = parents
            z -= 1
        }
        return counts
    }

    /// Interleaved bits of x and y: siblings at every level are contiguous in this order.
    static func morton(_ t: TileID) -> UInt64 {
        var key: UInt64 = 0
        for bit in 0..<t.z {
            key |= UInt64((t.x >> bit) & 1) << (2 * bit) | UInt64((t.y >> bit) & 1) << (2 * bit + 1)
        }
        return key
    }

    /// The work of rendering `unit`: for each source, the top-zoom tiles of the unit its footprint
    /// covers (each is read and drawn), plus one for the unit itself. Areas no source covers cost
    /// next to nothing.
    static func work(unit: TileID, top: TileRange, footprints: [TileRange]) -> Int {
        guard let below = top.intersection(TileRange(under: unit, zoom: top.z)) else { return 1 }
        return footprints.reduce(1) { $0 + ($1.intersection(below)?.count ?? 0) }
    }

    /// The units of shard `shard`: every band's units in order, cut into `shard.count` contiguous
    /// runs of about equal work; a unit belongs to the run its work's midpoint falls in.
    static func select(_ shard: ShardSpec, units: [[TileID]], work: [[Int]]) -> [[TileID]] {
        let total = Double(work.joined().reduce(0, +))
        var before = 0.0
        return units.indices.map { b in
            units[b].indices.compactMap { i in
                let mid = before + Double(work[b][i]) / 2
                before += Double(work[b][i])
                let part = min(shard.count - 1, Int(mid / max(total, 1) * Double(shard.count)))
                return part == shard.index - 1 ? units[b][i] : nil
            }
        }
    }
}
