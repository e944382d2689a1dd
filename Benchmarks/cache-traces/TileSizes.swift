import Foundation
import TileCache
import TileGeometry

/// Encoded sizes of shaded-relief tiles, deterministic per tile. A relief tile's size follows the
/// roughness of its terrain: flat land and sea compress to a few KB, mountains to 100 KB and more
/// (the world relief's hot tile is 115 KB). The model: smooth value noise over the map (in zoom-8
/// tile units, three octaves, so neighbours and a tile's children resemble it); where it is below
/// 0.3 the tile is sea (1-3 KB), above it land from 8 KB to 120 KB on a log scale, times a
/// per-tile log-normal jitter (sigma 0.25). Deeper zooms of a relief drawn from one source
/// resolution are smoother: sizes shrink by 6% a zoom level past 12.
struct TileSizes {
    var factor = 1.0

    func bytes(_ key: TileKey) -> Int {
        let t = key.tile
        let scale = 1 / Double(1 << max(0, t.z - 8))
        let u = (Double(t.x) + 0.5) * scale, v = (Double(t.y) + 0.5) * scale
        let n = 0.55 * noise(u * 2, v * 2, 1) + 0.3 * noise(u * 5, v * 5, 2) + 0.15 * noise(u * 13, v * 13, 3)
        let jitter = exp(0.25 * gaussian(hash(t.z, t.x, t.y, 9)))
        var size: Double
        if n < 0.3 {
            size = 1_000 + 2_000 * unit(hash(t.z, t.x, t.y, 7))
        } else {
            let r = min(1, (n - 0.3) / 0.5)
            size = exp(log(8_000) + r * (log(120_000) - log(8_000))) * jitter
        }
        size *= pow(0.94, Double(max(0, t.z - 12)))
        return max(200, Int(size * factor))
    }

    private func noise(_ x: Double, _ y: Double, _ octave: Int) -> Double {
        let x0 = x.rounded(.down), y0 = y.rounded(.down)
        let fx = smooth(x - x0), fy = smooth(y - y0)
        let ix = Int(x0), iy = Int(y0)
        func h(_ a: Int, _ b: Int) -> Double { unit(hash(octave, a, b, 1)) }
        let top = h(ix, iy) + (h(ix + 1, iy) - h(ix, iy)) * fx
        let bottom = h(ix, iy + 1) + (h(ix + 1, iy + 1) - h(ix, iy + 1)) * fx
        return top + (bottom - top) * fy
    }

    private func smooth(_ t: Double) -> Double { t * t * (3 - 2 * t) }

    private func hash(_ a: Int, _ b: Int, _ c: Int, _ d: Int) -> UInt64 {
        var g = SplitMix(state: UInt64(bitPattern: Int64(a &* 73_856_093 ^ b &* 19_349_663 ^ c &* 83_492_791 ^ d &* 2_654_435_761)))
        return g.next()
    }

    private func unit(_ h: UInt64) -> Double { Double(h >> 11) / Double(1 << 53) }

    /// A standard normal number from a hash (Box-Muller).
    private func gaussian(_ h: UInt64) -> Double {
        var g = SplitMix(state: h)
        let a = max(1e-12, unit(g.next())), b = unit(g.next())
        return sqrt(-2 * log(a)) * cos(2 * .pi * b)
    }
}
