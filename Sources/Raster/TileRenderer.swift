import Foundation
import TileGeometry

/// Reprojects source pixels into Web Mercator tiles.
public struct TileRenderer: Sendable {
    public let tileSize: Int
    public let resampling: Resampling

    public init(tileSize: Int = 256, resampling: Resampling) {
        self.tileSize = tileSize
        self.resampling = resampling
    }

    /// Reusable buffers of one rendering thread.
    public struct Scratch {
        var window: [UInt8] = []
        public init() {}
    }

    /// Renders `sources` into one tile, later sources drawn over earlier ones (transparent pixels
    /// never cover anything). Returns nil when the tile is fully transparent.
    public func render(_ tile: TileID, sources: [GeoreferencedSource], scratch: inout Scratch) -> RGBAImage? {
        var result: RGBAImage?
        let tb = tile.mercatorBounds
        for source in sources where source.mercatorBounds.intersects(tb) {
            guard let layer = render(tile, source: source, scratch: &scratch) else { continue }
            if result == nil { result = layer } else { Compositing.draw(layer, over: &result!) }
        }
        guard let result, !result.isFullyTransparent else { return nil }
        return result
    }

    /// Renders one source into a tile; nil when the source does not reach into the tile.
    public func render(_ tile: TileID, source: GeoreferencedSource, scratch: inout Scratch) -> RGBAImage? {
        let n = tileSize
        let tb = tile.mercatorBounds
        let res = (tb.maxX - tb.minX) / Double(n)
        let g = source.georeference
        // Source pixel coordinates (level 0) of tile pixel edges and centres, per axis.
        var xEdges = [Double](repeating: 0, count: n + 1), yEdges = xEdges
        var xCenters = [Double](repeating: 0, count: n), yCenters = xCenters
        for i in 0...n {
            xEdges[i] = g.column(x: sourceX(tb.minX + Double(i) * res, g.crs))
            yEdges[i] = g.row(y: sourceY(tb.maxY - Double(i) * res, g.crs))
            if i < n {
                xCenters[i] = g.column(x: sourceX(tb.minX + (Double(i) + 0.5) * res, g.crs))
                yCenters[i] = g.row(y: sourceY(tb.maxY - (Double(i) + 0.5) * res, g.crs))
            }
        }
        // Pick the overview where one tile pixel covers between one and two source pixels.
        let rx = abs(xEdges[n] - xEdges[0]) / Double(n)
        let ry = abs(yEdges[n] - yEdges[0]) / Double(n)
        let ratio = min(rx, ry)
        let level = ratio >= 2 ? min(Int(log2(ratio).rounded(.down)), source.pyramid.levels.count - 1) : 0
        let scale = Double(1 << level)
        let lv = source.pyramid.levels[level]
        if level > 0 {
            for i in 0...n {
                xEdges[i] /= scale
                yEdges[i] /= scale
                if i < n {
                    xCenters[i] /= scale
                    yCenters[i] /= scale
                }
            }
        }
        let xt = ResamplingTaps.make(edges: xEdges, centers: xCenters, size: lv.width, method: resampling)
        let yt = ResamplingTaps.make(edges: yEdges, centers: yCenters, size: lv.height, method: resampling)
        guard let (x0, x1) = xt.span, let (y0, y1) = yt.span else { return nil }
        let ww = x1 - x0 + 1
        source.pyramid.readWindow(level: level, x0: x0, y0: y0, w: ww, h: y1 - y0 + 1, into: &scratch.window)
        return resample(window: scratch.window, windowWidth: ww, x0: x0, y0: y0, xt: xt, yt: yt)
    }

    private func resample(window: [UInt8], windowWidth ww: Int, x0: Int, y0: Int,
                          xt: ResamplingTaps, yt: ResamplingTaps) -> RGBAImage {
        let n = tileSize
        var out = [UInt8](repeating: 0, count: n * n * 4)
        window.withUnsafeBufferPointer { win in
            out.withUnsafeMutableBufferPointer { o in
                for j in 0..<n {
                    let ys = Int(yt.start[j]), yc = Int(yt.count[j])
                    if yc == 0 { continue }
                    for i in 0..<n {
                        let xs = Int(xt.start[i]), xc = Int(xt.count[i])
                        if xc == 0 { continue }
                        var sa: Float = 0, sr: Float = 0, sg: Float = 0, sb: Float = 0
                        for b in ys..<(ys + yc) {
                            let wy = yt.weight[b]
                            let rowBase = (Int(yt.index[b]) - y0) * ww
                            for a in xs..<(xs + xc) {
                                let w = wy * xt.weight[a]
                                let p = (rowBase + Int(xt.index[a]) - x0) * 4
                                let al = w * Float(win[p + 3])
                                sa += al
                                sr += al * Float(win[p])
                                sg += al * Float(win[p + 1])
                                sb += al * Float(win[p + 2])
                            }
                        }
                        guard sa > 0 else { continue }
                        let q = (j * n + i) * 4
                        let alpha = sa / (xt.total[i] * yt.total[j])
                        o[q] = UInt8(min(sr / sa + 0.5, 255))
                        o[q + 1] = UInt8(min(sg / sa + 0.5, 255))
                        o[q + 2] = UInt8(min(sb / sa + 0.5, 255))
                        o[q + 3] = UInt8(min(alpha + 0.5, 255))
                    }
                }
            }
        }
        return RGBAImage(width: n, height: n, pixels: out)
    }

    @inline(__always) private func sourceX(_ mx: Double, _ crs: CRS) -> Double {
        crs == .epsg4326 ? mx / WebMercator.originShift * 180 : mx
    }

    @inline(__always) private func sourceY(_ my: Double, _ crs: CRS) -> Double {
        crs == .epsg4326 ? WebMercator.latitude(y: my) : my
    }
}
