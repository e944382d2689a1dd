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
        /// Per window row and output column: the horizontal pass's alpha-weighted sums.
        var rows: [SIMD4<Float>] = []
        public init() {}
    }

    /// Renders the sheets `sources` into one tile (see `render(_:layers:scratch:)`). Returns nil
    /// when the tile is fully transparent.
    public func render(_ tile: TileID, sources: [GeoreferencedSource], scratch: inout Scratch) -> RGBAImage? {
        // A pyramid has every level, so its windows are never halved: its reads cannot fail.
        try! render(tile, layers: sources.map(\.layer), scratch: &scratch)
    }

    /// Renders the sheets of one map into one tile, later sheets joined onto earlier ones
    /// (`Compositing.join`: transparent pixels never cover anything, and partial coverages along
    /// shared edges add up). Returns nil when the tile is fully transparent.
    public func render(_ tile: TileID, layers: [SourceLayer], scratch: inout Scratch) throws -> RGBAImage? {
        var result: RGBAImage?
        let tb = tile.mercatorBounds
        for layer in layers where layer.mercatorBounds.intersects(tb) {
            guard let image = try render(tile, layer: layer, scratch: &scratch) else { continue }
            if result == nil { result = image } else { Compositing.join(image, onto: &result!) }
        }
        guard let result, !result.isFullyTransparent else { return nil }
        return result
    }

    /// Renders one layer into a tile; nil when the layer does not reach into the tile.
    public func render(_ tile: TileID, layer: SourceLayer, scratch: inout Scratch) throws -> RGBAImage? {
        switch layer.mapping {
        case let .separable(g):
            return try renderSeparable(tile, reader: layer.reader, georeference: g, supersampled: layer.paletted, scratch: &scratch)
        case let .general(mapping):
            return try Warper(tileSize: tileSize, resampling: resampling, supersampled: layer.paletted)
                .render(tile, reader: layer.reader, mapping: mapping, scratch: &scratch)
        }
    }

    /// Renders one source whose columns depend on x only and rows on y only (closed form).
    func renderSeparable(
        _ tile: TileID, reader: any SourceWindowReader, georeference g: PixelGrid,
        supersampled: Bool = false, scratch: inout Scratch
    ) throws -> RGBAImage? {
        let n = tileSize
        let tb = tile.mercatorBounds
        let res = (tb.maxX - tb.minX) / Double(n)
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
        // Sample where one tile pixel covers between one and two source pixels.
        let rx = abs(xEdges[n] - xEdges[0]) / Double(n)
        let ry = abs(yEdges[n] - yEdges[0]) / Double(n)
        let ratio = min(rx, ry)
        let plan = WindowPlan(levels: reader.levels, ratio: ratio)
        if plan.scaleX != 1 || plan.scaleY != 1 {
            for i in 0...n {
                xEdges[i] /= plan.scaleX
                yEdges[i] /= plan.scaleY
                if i < n {
                    xCenters[i] /= plan.scaleX
                    yCenters[i] /= plan.scaleY
                }
            }
        }
        let xt = ResamplingTaps.make(edges: xEdges, centers: xCenters, size: plan.width, method: resampling, supersampled: supersampled)
        let yt = ResamplingTaps.make(edges: yEdges, centers: yCenters, size: plan.height, method: resampling, supersampled: supersampled)
        guard let (x0, x1) = xt.span, let (y0, y1) = yt.span else { return nil }
        let ww = x1 - x0 + 1
        let wh = y1 - y0 + 1
        try plan.read(from: reader, x0: x0, y0: y0, x1: x1 + 1, y1: y1 + 1, into: &scratch.window)
        if resampling == .mode { return resampleMode(window: scratch.window, width: ww, origin: (x0, y0), xt: xt, yt: yt) }
        return resample(window: scratch.window, size: (ww, wh), origin: (x0, y0), xt: xt, yt: yt, rows: &scratch.rows)
    }

    /// Separable: a horizontal pass sums each window row's taps per output column (colours
    /// weighted by alpha, and the alpha weight), then a vertical pass sums those rows per output
    /// pixel. Overzoomed tiles read each window row for several output rows, so it is done once.
    private func resample(
        window: [UInt8], size: (width: Int, height: Int), origin: (x: Int, y: Int),
        xt: ResamplingTaps, yt: ResamplingTaps, rows: inout [SIMD4<Float>]
    ) -> RGBAImage {
        let n = tileSize
        let (ww, wh) = size
        if rows.count < wh * n { rows = [SIMD4<Float>](repeating: .zero, count: wh * n) }
        let xOffsets = xt.index.map { (Int($0) - origin.x) * 4 }
        window.withUnsafeBytes { win in
            xOffsets.withUnsafeBufferPointer { xo in
                xt.weight.withUnsafeBufferPointer { xw in
                    rows.withUnsafeMutableBufferPointer { h in
                        for r in 0..<wh {
                            let rowBase = r * ww * 4
                            for i in 0..<n {
                                let xs = Int(xt.start[i]), xe = xs + Int(xt.count[i])
                                var sum = SIMD4<Float>.zero
                                for a in xs..<xe {
                                    let p = rowBase + xo[a]
                                    let al = xw[a] * Float(win[p + 3])
                                    sum += SIMD4<Float>(Float(win[p]), Float(win[p + 1]), Float(win[p + 2]), 1) * al
                                }
                                h[r * n + i] = sum
                            }
                        }
                    }
                }
            }
        }
        var out = [UInt8](repeating: 0, count: n * n * 4), alternates = out
        rows.withUnsafeBufferPointer { h in
            out.withUnsafeMutableBufferPointer { o in
                alternates.withUnsafeMutableBufferPointer { alt in
                    for j in 0..<n {
                        let ys = Int(yt.start[j]), ye = ys + Int(yt.count[j])
                        if ys == ye { continue }
                        let yTotal = yt.total[j]
                        for i in 0..<n where xt.count[i] > 0 {
                            var sum = SIMD4<Float>.zero
                            for b in ys..<ye {
                                sum += h[(Int(yt.index[b]) - origin.y) * n + i] * yt.weight[b]
                            }
                            let q = (j * n + i) * 4
                            RoundingPair.write(sum, total: xt.total[i] * yTotal, to: o.baseAddress! + q, alternates: alt.baseAddress! + q)
                        }
                    }
                }
            }
        }
        return RGBAImage(width: n, height: n, pixels: out, roundingAlternates: alternates)
    }

    @inline(__always) private func sourceX(_ mx: Double, _ crs: CRS) -> Double {
        crs == .epsg4326 ? mx / WebMercator.originShift * 180 : mx
    }

    @inline(__always) private func sourceY(_ my: Double, _ crs: CRS) -> Double {
        crs == .epsg4326 ? WebMercator.latitude(y: my) : my
    }
}
