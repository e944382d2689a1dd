import Foundation
import TileGeometry
import Trails

/// Where an update of a build with trails must draw again: near every trail of the old bundle and
/// of the new build. Labels are placed against one another, so one renamed trail can move
/// another's label: the whole trails overlay is redrawn, and tiles away from every trail are kept.
/// A tile is near a trail when the trail's box, grown by one tile of the tile's own zoom, meets
/// it (strokes and labels reach less than a tile past a line, as the overlay build assumes); the
/// zooms below the trails' are made again there too, from the levels below.
///
/// The trails' neighbourhood is redrawn in any update of a bundle with trails, not only when they
/// changed: a level above is made from the pixels below without their trails, which a kept old
/// tile holding trails no longer has.
struct TrailRedraw: Sendable {
    /// The trails' boxes in Web Mercator metres, bucketed on a grid for the look-ups.
    private let boxes: [MercatorBounds]
    private let buckets: [Int: [Int]]
    private static let gridZoom = 10

    /// Old and new trails' boxes (degrees).
    init(boxes geo: [TrailBox]) {
        boxes = geo.map { b in
            GeoBounds(
                west: b.west, south: max(b.south, -WebMercator.maxLatitude), east: b.east,
                north: min(max(b.north, b.south), WebMercator.maxLatitude)
            ).mercator
        }
        var buckets = [Int: [Int]]()
        for (i, b) in boxes.enumerated() {
            for key in Self.keys(b) { buckets[key, default: []].append(i) }
        }
        self.buckets = buckets
    }

    var isEmpty: Bool { boxes.isEmpty }

    /// Whether a trail lies within one tile of `t` (at `t`'s zoom).
    func touches(_ t: TileID) -> Bool {
        let b = t.mercatorBounds, m = b.maxX - b.minX
        let grown = MercatorBounds(minX: b.minX - m, minY: b.minY - m, maxX: b.maxX + m, maxY: b.maxY + m)
        let c = Self.cells(grown)
        if (c.x1 - c.x0 + 1) * (c.y1 - c.y0 + 1) > boxes.count { return boxes.contains { $0.intersects(grown) } }
        for y in c.y0...c.y1 {
            for x in c.x0...c.x1 where buckets[y << Self.gridZoom | x]?.contains(where: { boxes[$0].intersects(grown) }) == true {
                return true
            }
        }
        return false
    }

    /// The grid cells `b` meets, as column and row ranges.
    private static func cells(_ b: MercatorBounds) -> (x0: Int, x1: Int, y0: Int, y1: Int) {
        let n = 1 << gridZoom, span = 2 * WebMercator.originShift / Double(n)
        func cell(_ v: Double) -> Int { min(n - 1, max(0, Int(((v + WebMercator.originShift) / span).rounded(.down)))) }
        return (cell(b.minX), cell(b.maxX), cell(b.minY), cell(b.maxY))
    }

    /// The grid cells `b` meets (keys of `buckets`).
    private static func keys(_ b: MercatorBounds) -> [Int] {
        let c = cells(b)
        var out = [Int]()
        for y in c.y0...c.y1 { for x in c.x0...c.x1 { out.append(y << gridZoom | x) } }
        return out
    }

    /// The boxes of the trails of the bundle at `path` (none when it holds no trails).
    static func boxes(ofBundle path: String) throws(BuildError) -> [TrailBox] {
        do throws(TrailStoreError) {
            return try TrailIndex(bundle: path).all().map(\.bounds)
        } catch .noTrails {
            return []
        } catch {
            throw .trailStore(error)
        }
    }
}
