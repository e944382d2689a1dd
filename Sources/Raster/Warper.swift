import Foundation
import TileGeometry

/// Reprojects a source in any CRS into a tile. The Mercator → source-pixel transform is exact on a
/// grid of points over the tile and bilinear between them; the grid is refined until the
/// interpolation error, checked at every cell's centre, is below 0.125 pixels of the sampled source
/// level and 0.125 tile pixels (gdalwarp's default error threshold, which is in output pixels; the
/// second binds where the source is magnified, e.g. a coarse grid near a pole). Each tile pixel
/// then samples the source level where it spans one to two pixels: the area-weighted mean of the
/// pixels under its footprint (an axis-aligned box from the local Jacobian), bilinear
/// interpolation, or the nearest pixel.
struct Warper {
    let tileSize: Int
    let resampling: Resampling
    /// `average` by point samples (`Supersampling`): for palette sources.
    var supersampled = false
    /// Interpolation error allowed, in sampled pixels.
    static let maxError = 0.125

    /// Grid of exact transforms: `m × m` points at tile-pixel positions `(a·step, b·step)`.
    struct Grid {
        var step: Int
        var m: Int
        var xs: [Double]
        var ys: [Double]
    }

    func render(
        _ tile: TileID, reader: any SourceWindowReader, mapping: any MercatorToPixel,
        scratch: inout TileRenderer.Scratch
    ) throws -> RGBAImage? {
        let n = tileSize
        let tb = tile.mercatorBounds
        let res = (tb.maxX - tb.minX) / Double(n)
        var grid = makeGrid(step: min(64, n), tile: tb, res: res, mapping: mapping)
        var found = footprintRatio(grid)
        // No cell with four valid corners: the tile may still cut the edge of the projection's
        // domain (an orthographic disc's limb, a world Mollweide's outline) between the grid's
        // points. Finer grids are tried while some point is valid, and down to 16 pixels anyway.
        while found == nil, grid.step > 1, grid.step > 16 || grid.xs.contains(where: \.isFinite) {
            grid = makeGrid(step: grid.step / 2, tile: tb, res: res, mapping: mapping)
            found = footprintRatio(grid)
        }
        guard let ratio = found else { return nil }
        let plan = WindowPlan(levels: reader.levels, ratio: ratio)
        // Refine until bilinear interpolation is within the threshold everywhere: in the plan's
        // pixels, and in tile pixels where one spans less than a plan pixel (`ratio` is the
        // smallest span over the tile, so the bound holds for every cell).
        let threshold = Warper.maxError * min(1, ratio / max(plan.scaleX, plan.scaleY))
        while grid.step > 1 {
            let error = interpolationError(grid, tile: tb, res: res, mapping: mapping, plan: plan)
            if error <= threshold { break }
            grid = makeGrid(step: grid.step / 2, tile: tb, res: res, mapping: mapping)
        }
        // To effective pixels of the plan.
        for k in 0..<grid.xs.count {
            grid.xs[k] /= plan.scaleX
            grid.ys[k] /= plan.scaleY
        }
        // Footprint half-sizes per cell, and the window every sample lies in.
        let cells = grid.m - 1
        var halfX = [Double](repeating: .nan, count: cells * cells), halfY = halfX
        var lo = (x: Double.infinity, y: Double.infinity), hi = (x: -Double.infinity, y: -Double.infinity)
        var maxHalf = 0.0
        let s = Double(grid.step)
        for b in 0..<cells {
            for a in 0..<cells {
                let p = b * grid.m + a
                let cx = [grid.xs[p], grid.xs[p + 1], grid.xs[p + grid.m], grid.xs[p + grid.m + 1]]
                let cy = [grid.ys[p], grid.ys[p + 1], grid.ys[p + grid.m], grid.ys[p + grid.m + 1]]
                guard cx.allSatisfy(\.isFinite), cy.allSatisfy(\.isFinite) else { continue }
                let dxi = (cx[1] - cx[0] + cx[3] - cx[2]) / (2 * s), dxj = (cx[2] - cx[0] + cx[3] - cx[1]) / (2 * s)
                let dyi = (cy[1] - cy[0] + cy[3] - cy[2]) / (2 * s), dyj = (cy[2] - cy[0] + cy[3] - cy[1]) / (2 * s)
                let hx = (abs(dxi) + abs(dxj)) / 2, hy = (abs(dyi) + abs(dyj)) / 2
                halfX[b * cells + a] = hx
                halfY[b * cells + a] = hy
                maxHalf = max(maxHalf, hx, hy)
                lo = (min(lo.x, cx.min()!), min(lo.y, cy.min()!))
                hi = (max(hi.x, cx.max()!), max(hi.y, cy.max()!))
            }
        }
        guard lo.x.isFinite else { return nil }
        let margin = maxHalf + 2 + (resampling.kernelRadius ?? 0)
        let x0 = max(0, Int((lo.x - margin).rounded(.down))), y0 = max(0, Int((lo.y - margin).rounded(.down)))
        let x1 = min(plan.width, Int((hi.x + margin).rounded(.up))), y1 = min(plan.height, Int((hi.y + margin).rounded(.up)))
        guard x0 < x1, y0 < y1 else { return nil }
        try plan.read(from: reader, x0: x0, y0: y0, x1: x1, y1: y1, into: &scratch.window)
        return sample(
            grid: grid, halfX: halfX, halfY: halfY, window: scratch.window,
            origin: (x0, y0), size: (x1 - x0, y1 - y0), level: (plan.width, plan.height))
    }

    private func makeGrid(step: Int, tile tb: MercatorBounds, res: Double, mapping: any MercatorToPixel) -> Grid {
        let m = tileSize / step + 1
        var xs = [Double](repeating: 0, count: m * m), ys = xs
        for b in 0..<m {
            for a in 0..<m {
                xs[b * m + a] = tb.minX + Double(a * step) * res
                ys[b * m + a] = tb.maxY - Double(b * step) * res
            }
        }
        xs.withUnsafeMutableBufferPointer { x in
            ys.withUnsafeMutableBufferPointer { y in mapping.pixels(xs: x.baseAddress!, ys: y.baseAddress!, count: m * m) }
        }
        return Grid(step: step, m: m, xs: xs, ys: ys)
    }

    /// Full-resolution source pixels per tile pixel along the finer axis (the smallest over the
    /// grid's cells), or nil when no cell maps into the source's CRS.
    private func footprintRatio(_ g: Grid) -> Double? {
        var ratio = Double.infinity
        let s = Double(g.step)
        for b in 0..<(g.m - 1) {
            for a in 0..<(g.m - 1) {
                let p = b * g.m + a
                let di = hypot(g.xs[p + 1] - g.xs[p], g.ys[p + 1] - g.ys[p]) / s
                let dj = hypot(g.xs[p + g.m] - g.xs[p], g.ys[p + g.m] - g.ys[p]) / s
                if di.isFinite, dj.isFinite, di > 0, dj > 0 { ratio = min(ratio, di, dj) }
            }
        }
        return ratio.isFinite ? ratio : nil
    }

    /// The largest difference, in the plan's pixels, between the exact transform of each cell's
    /// centre and the bilinear interpolation of its corners; infinite when a cell is partly valid.
    private func interpolationError(
        _ g: Grid, tile tb: MercatorBounds, res: Double, mapping: any MercatorToPixel,
        plan: WindowPlan
    ) -> Double {
        let cells = g.m - 1
        var xs = [Double](repeating: 0, count: cells * cells), ys = xs
        for b in 0..<cells {
            for a in 0..<cells {
                xs[b * cells + a] = tb.minX + (Double(a) + 0.5) * Double(g.step) * res
                ys[b * cells + a] = tb.maxY - (Double(b) + 0.5) * Double(g.step) * res
            }
        }
        xs.withUnsafeMutableBufferPointer { x in
            ys.withUnsafeMutableBufferPointer { y in mapping.pixels(xs: x.baseAddress!, ys: y.baseAddress!, count: cells * cells) }
        }
        var worst = 0.0
        for b in 0..<cells {
            for a in 0..<cells {
                let p = b * g.m + a
                let ix = (g.xs[p] + g.xs[p + 1] + g.xs[p + g.m] + g.xs[p + g.m + 1]) / 4
                let iy = (g.ys[p] + g.ys[p + 1] + g.ys[p + g.m] + g.ys[p + g.m + 1]) / 4
                let ex = xs[b * cells + a], ey = ys[b * cells + a]
                let cornersValid = ix.isFinite && iy.isFinite
                if cornersValid != (ex.isFinite && ey.isFinite) { return .infinity }
                guard cornersValid else { continue }
                worst = max(worst, hypot((ix - ex) / plan.scaleX, (iy - ey) / plan.scaleY))
            }
        }
        return worst
    }
}
