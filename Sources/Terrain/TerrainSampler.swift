import Foundation
import TileGeometry

/// Elevations from one or several sets of terrain tiles: for each point the highest zoom that
/// has a tile there (across all sets), sampled bilinearly between the four nearest pixel
/// centres, across tile edges where needed. A void pixel takes no part; a point whose nearest
/// pixel is void has no elevation there and the next set or lower zoom is tried.
public final class TerrainSampler: ElevationSource {
    public let sources: [any TerrainTiles]
    private let memo: TerrainTileMemo
    /// Each source's `memoKey`, asked once.
    private let memoKeys: [String]

    /// `memo`: where decoded tiles are kept (absent ones included); by default one of its own.
    public init(_ sources: [any TerrainTiles], memo: TerrainTileMemo = TerrainTileMemo(capacity: 64)) {
        self.sources = sources
        self.memo = memo
        memoKeys = sources.map(\.memoKey)
    }

    /// Opens the terrain bundles at `paths` (validated, see `TerrainBundle`).
    public convenience init(paths: [String], memo: TerrainTileMemo = TerrainTileMemo(capacity: 64)) throws(ElevationError) {
        var opened = [any TerrainTiles]()
        for p in paths { opened.append(try TerrainBundle(path: p)) }
        self.init(opened, memo: memo)
    }

    public func elevations(at points: [GeoPoint]) throws(ElevationError) -> [Double?] {
        guard let top = sources.map(\.zooms.upperBound).max(), let bottom = sources.map(\.zooms.lowerBound).min() else {
            return points.map { _ in nil }
        }
        let zooms = sources.map(\.zooms)
        var held = HeldTiles()
        var out = [Double?]()
        out.reserveCapacity(points.count)
        for p in points {
            guard p.hasValidLatitude, p.hasValidLongitude, abs(p.lat) <= WebMercator.maxLatitude else {
                out.append(nil)
                continue
            }
            let m = WebMercator.project(lon: p.lon, lat: p.lat)
            var found: Double?
            search: for z in stride(from: top, through: bottom, by: -1) {
                for i in sources.indices where zooms[i].contains(z) {
                    let home = WebMercator.tile(x: m.x, y: m.y, zoom: z)
                    guard let tile = try tile(source: i, home, held: &held) else { continue }
                    if let v = try sample(source: i, zoom: z, size: tile.size, x: m.x, y: m.y, held: &held) {
                        found = v
                        break search
                    }
                }
            }
            out.append(found)
        }
        return out
    }

    /// Bilinear sample at Web Mercator metres (`x`, `y`) in zoom `z` of source `i`, whose tiles are
    /// `size` pixels; nil when the nearest pixel is void.
    private func sample(
        source i: Int, zoom z: Int, size: Int, x: Double, y: Double, held: inout HeldTiles
    ) throws(ElevationError) -> Double? {
        let span = WebMercator.tileSpan(zoom: z)
        let world = size << z
        // Global pixel coordinates, relative to pixel centres.
        let gx = (x + WebMercator.originShift) / span * Double(size) - 0.5
        let gy = (WebMercator.originShift - y) / span * Double(size) - 0.5
        let x0 = Int(gx.rounded(.down)), y0 = Int(gy.rounded(.down))
        let fx = gx - Double(x0), fy = gy - Double(y0)
        let nearest = (fx < 0.5 ? 0 : 1, fy < 0.5 ? 0 : 1)
        var sum = 0.0, weights = 0.0
        for dy in 0...1 {
            for dx in 0...1 {
                let px = min(max(x0 + dx, 0), world - 1), py = min(max(y0 + dy, 0), world - 1)
                let w = (dx == 0 ? 1 - fx : fx) * (dy == 0 ? 1 - fy : fy)
                let v = try pixel(source: i, zoom: z, size: size, px: px, py: py, held: &held)
                guard let v else {
                    if (dx, dy) == nearest { return nil }
                    continue
                }
                sum += w * Double(v)
                weights += w
            }
        }
        return weights > 0 ? sum / weights : nil
    }

    /// The elevation of global pixel (`px`, `py`) at zoom `z`: nil when void or when its tile is
    /// absent or of another size.
    private func pixel(source i: Int, zoom z: Int, size: Int, px: Int, py: Int, held: inout HeldTiles) throws(ElevationError) -> Float? {
        let t = TileID(unchecked: z, px / size, py / size)
        guard let tile = try tile(source: i, t, held: &held), tile.size == size else { return nil }
        return tile.value(column: px % size, row: py % size)
    }

    /// A decoded tile of source `i`: the last one this call used when it is the one, else
    /// through the call's own tiles, else the shared memo; nil when the source has none there.
    private func tile(source i: Int, _ t: TileID, held: inout HeldTiles) throws(ElevationError) -> ElevationTile? {
        if let last = held.last, last.source == i, last.tile == t { return last.decoded }
        let decoded: ElevationTile?
        if let known = held.tiles[HeldTiles.Key(source: i, tile: t)] {
            decoded = known
        } else {
            decoded = try tile(source: i, t)
            held.tiles[HeldTiles.Key(source: i, tile: t)] = decoded
        }
        held.last = (i, t, decoded)
        return decoded
    }

    /// A decoded tile of source `i` through the memo; nil when the source has none there.
    private func tile(source i: Int, _ t: TileID) throws(ElevationError) -> ElevationTile? {
        let key = TerrainTileMemo.Key(source: memoKeys[i], tile: t)
        if let held = memo.lookup(key) { return held }
        let s = sources[i]
        var decoded: ElevationTile?
        if let data = try s.tileData(t) {
            decoded = try ElevationTile(data: data, encoding: s.encoding, name: s.name, tile: t.description)
        }
        memo.store(decoded, for: key)
        return decoded
    }

    /// The tiles one `elevations(at:)` call has used (absent ones included), so that the
    /// shared memo (a lock, a key of text) is asked once per tile and call, not once per pixel.
    private struct HeldTiles {
        struct Key: Hashable {
            var source: Int
            var tile: TileID
        }
        var tiles: [Key: ElevationTile?] = [:]
        var last: (source: Int, tile: TileID, decoded: ElevationTile?)?
    }
}
