import CGDAL
import Foundation

/// GDAL's transformer from Web Mercator metres to a DEM's pixel/line positions (its geotransform
/// or ground control points, from the CRS given or its own), as gdalwarp makes it, with one
/// approximating transformer per error threshold. Owned by one `DEMReader` (one thread).
final class DEMPixelTransformer {
    private let exact: UnsafeMutableRawPointer
    private var approximate: [Double: UnsafeMutableRawPointer] = [:]

    init?(dataset: GDALDatasetH, sourceWKT: String) {
        let options = CStringArray(["SRC_SRS=\(sourceWKT)", "DST_SRS=\(DEMReader.mercatorWKT)"])
        guard let h = GDALCreateGenImgProjTransformer2(dataset, nil, options.pointer) else { return nil }
        exact = h
    }

    deinit {
        for a in approximate.values { GDALDestroyApproxTransformer(a) }
        GDALDestroyGenImgProjTransformer(exact)
    }

    /// Web Mercator points (`xs`, `ys`, one row of pixel centres) to the DEM's pixel/line
    /// positions in place, `ok` set per point; `errorThreshold` in source pixels (0: exact).
    func toPixels(
        xs: UnsafeMutablePointer<Double>, ys: UnsafeMutablePointer<Double>, zs: UnsafeMutablePointer<Double>,
        ok: UnsafeMutablePointer<Int32>, count: Int, errorThreshold: Double
    ) {
        if errorThreshold <= 0 {
            _ = GDALGenImgProjTransform(exact, 1, Int32(count), xs, ys, zs, ok)
            return
        }
        let a: UnsafeMutableRawPointer
        if let held = approximate[errorThreshold] {
            a = held
        } else {
            a = GDALCreateApproxTransformer(GDALGenImgProjTransform, exact, errorThreshold)
            approximate[errorThreshold] = a
        }
        _ = GDALApproxTransform(a, 1, Int32(count), xs, ys, zs, ok)
    }
}

/// Bilinear elevations computed here from the DEM's pixels (`DEMReader.elevations` with
/// `.bilinear`, where tile pixels are finer than the DEM's): each tile pixel's centre carried to
/// the DEM's pixels by gdalwarp's transformer, the DEM's window under a strip of rows read once,
/// then GDAL's masked bilinear kernel: a pixel whose own DEM pixel is a void (or outside the
/// DEM) is void; otherwise the four DEM pixels around it weigh as their distances say, voids
/// and pixels past the DEM's edge left out and the others' weights renormalised. Done by GDAL's
/// warper instead when the band's voids come from a mask other than its nodata value, or when
/// the tile pixels are not finer than the DEM's (GDAL's kernel then widens).
extension DEMReader {
    /// Rows of tile pixels interpolated from one read of the DEM.
    static let bilinearStripRows = 256

    func bilinearElevations(
        minX: Double, minY: Double, maxX: Double, maxY: Double, width: Int, height: Int, border: Int,
        errorThreshold: Double?
    ) throws(SourceReaderError) -> [Float]? {
        guard let band = GDALGetRasterBand(handle, 1) else { return nil }
        let flags = GDALGetMaskFlags(band)
        guard flags == GMF_ALL_VALID || flags == GMF_NODATA else { return nil }
        var hasNodata: Int32 = 0
        let nodataValue = GDALGetRasterNoDataValue(band, &hasNodata)
        let nodata: Float? = hasNodata != 0 ? Float(nodataValue) : nil
        if pixelTransformer == nil { pixelTransformer = DEMPixelTransformer(dataset: handle, sourceWKT: sourceWKT) }
        guard let transformer = pixelTransformer else { return nil }
        let threshold = errorThreshold ?? 0.125
        let rasterWidth = Int(GDALGetRasterXSize(handle)), rasterHeight = Int(GDALGetRasterYSize(handle))
        let nx = width + 2 * border, ny = height + 2 * border
        let px = (maxX - minX) / Double(width), py = (maxY - minY) / Double(height)
        let left = minX - Double(border) * px, top = maxY + Double(border) * py

        // Tile pixels per DEM pixel along each axis, as GDAL's warper measures it (the box's
        // pixels over the DEM pixels its edges span): under 0.95, GDAL's kernel is another one.
        guard let span = edgeSpan(transformer, left: left, top: top, px: px, py: py, nx: nx, ny: ny, threshold: threshold),
            Double(nx) / max(span.x, 1e-9) >= 0.95, Double(ny) / max(span.y, 1e-9) >= 0.95
        else { return nil }

        var out = [Float](repeating: .nan, count: nx * ny)
        let rows = Self.bilinearStripRows
        // The buffers of the reader's previous call, taken (not shared: no copy on write) and
        // given back, grown when this box needs more.
        var (sx, sy, zs, ok, window) = bilinearScratch
        bilinearScratch = ([], [], [], [], [])
        defer { bilinearScratch = (sx, sy, zs, ok, window) }
        if sx.count < rows * nx {
            sx = [Double](repeating: 0, count: rows * nx)
            sy = sx
        }
        if zs.count < nx {
            zs = [Double](repeating: 0, count: nx)
            ok = [Int32](repeating: 0, count: nx)
        }
        let factor = Float(scale * unit.metres), shift = Float(offset * unit.metres)
        var strip = 0
        while strip < ny {
            let count = min(rows, ny - strip)
            // The strip's pixel centres in the DEM's pixels (NaN where the transform fails or
            // falls outside the DEM), and the DEM's pixels they need.
            // The extremes of the positions kept (floored once at the end: the floor is monotonic).
            var least = (x: Double.infinity, y: Double.infinity), most = (x: -Double.infinity, y: -Double.infinity)
            let width = Double(rasterWidth), height = Double(rasterHeight)
            sx.withUnsafeMutableBufferPointer { sxp in
                sy.withUnsafeMutableBufferPointer { syp in
                    zs.withUnsafeMutableBufferPointer { zsp in
                        ok.withUnsafeMutableBufferPointer { okp in
                            let zs = zsp.baseAddress!, ok = okp.baseAddress!
                            for r in 0..<count {
                                let xs = sxp.baseAddress! + r * nx, ys = syp.baseAddress! + r * nx
                                let y = top - (Double(strip + r) + 0.5) * py
                                for c in 0..<nx {
                                    xs[c] = left + (Double(c) + 0.5) * px
                                    ys[c] = y
                                    zs[c] = 0
                                }
                                transformer.toPixels(xs: xs, ys: ys, zs: zs, ok: ok, count: nx, errorThreshold: threshold)
                                var lx = least.x, ly = least.y, mx = most.x, my = most.y
                                for c in 0..<nx {
                                    let x = xs[c], y = ys[c]
                                    // gdalwarp's test: the pixel's own DEM pixel inside the raster
                                    // (`Int(x + 1e-10) < rasterWidth`, for x ≥ 0).
                                    guard ok[c] != 0, x >= 0, y >= 0, x + 1e-10 < width, y + 1e-10 < height else {
                                        xs[c] = .nan
                                        continue
                                    }
                                    lx = min(lx, x)
                                    ly = min(ly, y)
                                    mx = max(mx, x)
                                    my = max(my, y)
                                }
                                least = (lx, ly)
                                most = (mx, my)
                            }
                        }
                    }
                }
            }
            defer { strip += count }
            guard least.x <= most.x else { continue }
            let lo = (x: DEMWindow.floorHalfBelow(least.x), y: DEMWindow.floorHalfBelow(least.y))
            let hi = (x: DEMWindow.floorHalfBelow(most.x) + 1, y: DEMWindow.floorHalfBelow(most.y) + 1)
            let x0 = max(0, lo.x), y0 = max(0, lo.y), x1 = min(rasterWidth - 1, hi.x), y1 = min(rasterHeight - 1, hi.y)
            let ww = x1 - x0 + 1, wh = y1 - y0 + 1
            if window.count < ww * wh { window = [Float](repeating: 0, count: ww * wh) }
            let err = window.withUnsafeMutableBytes {
                GDALRasterIO(
                    band, GF_Read, Int32(x0), Int32(y0), Int32(ww), Int32(wh), $0.baseAddress, Int32(ww), Int32(wh),
                    GDT_Float32, 0, 0)
            }
            guard err == CE_None else {
                throw .readFailed(path: path, reason: GDALEnvironment.lastError(or: "reading the DEM's pixels failed"))
            }
            if let nodata {
                for i in 0..<(ww * wh) where window[i] == nodata || (nodata.isNaN && window[i].isNaN) { window[i] = .nan }
            }
            sx.withUnsafeBufferPointer { sxp in
                sy.withUnsafeBufferPointer { syp in
                    window.withUnsafeBufferPointer { win in
                        out.withUnsafeMutableBufferPointer { dst in
                            let grid = DEMWindow(
                                values: win.baseAddress!, x0: x0, y0: y0, width: ww, rasterWidth: rasterWidth,
                                rasterHeight: rasterHeight)
                            for k in 0..<(count * nx) {
                                let x = sxp[k]
                                if x.isNaN { continue }
                                let v = grid.bilinear(x: x, y: syp[k])
                                dst[strip * nx + k] = v.isNaN || (factor == 1 && shift == 0) ? v : v * factor + shift
                            }
                        }
                    }
                }
            }
        }
        return out
    }

    /// The DEM pixels spanned across and down by the box's edges (sampled), in the DEM's pixel
    /// grid's axes; nil when no edge point transforms.
    private func edgeSpan(
        _ transformer: DEMPixelTransformer, left: Double, top: Double, px: Double, py: Double, nx: Int, ny: Int,
        threshold: Double
    ) -> (x: Double, y: Double)? {
        let steps = 16
        var xs = [Double](), ys = [Double]()
        for k in 0...steps {
            let fx = Double(nx) * Double(k) / Double(steps), fy = Double(ny) * Double(k) / Double(steps)
            xs += [left + fx * px, left + fx * px, left, left + Double(nx) * px]
            ys += [top, top - Double(ny) * py, top - fy * py, top - fy * py]
        }
        var zs = [Double](repeating: 0, count: xs.count), ok = [Int32](repeating: 0, count: xs.count)
        transformer.toPixels(xs: &xs, ys: &ys, zs: &zs, ok: &ok, count: xs.count, errorThreshold: 0)
        var lo = (x: Double.infinity, y: Double.infinity), hi = (x: -Double.infinity, y: -Double.infinity)
        for i in xs.indices where ok[i] != 0 && xs[i].isFinite && ys[i].isFinite {
            lo = (min(lo.x, xs[i]), min(lo.y, ys[i]))
            hi = (max(hi.x, xs[i]), max(hi.y, ys[i]))
        }
        return lo.x.isFinite ? (hi.x - lo.x, hi.y - lo.y) : nil
    }
}

/// A window of a DEM's pixels (NaN: void) and GDAL's masked bilinear kernel on it.
struct DEMWindow {
    let values: UnsafePointer<Float>
    /// The window's first pixel in the raster, its width, and the raster's size.
    let x0: Int, y0: Int, width: Int
    let rasterWidth: Int, rasterHeight: Int

    /// `⌊v − 0.5⌋` (`v` a pixel/line position inside the raster, so far from `Int`'s limits)
    /// without a call to `floor`: truncated, then one less where that rounded a negative up.
    @inline(__always) static func floorHalfBelow(_ v: Double) -> Int {
        let f = v - 0.5
        let t = Int(f)
        return f < Double(t) ? t - 1 : t
    }

    /// The value at DEM pixel/line position (`x`, `y`) (inside the raster): void when the pixel
    /// holding it is; else the four nearest pixel centres' values weighted bilinearly, voids and
    /// pixels past the raster's edge left out (their weight shared by the others), void when
    /// they weigh almost nothing.
    @inline(__always) func bilinear(x: Double, y: Double) -> Float {
        let cx = Int(x + 1e-10), cy = Int(y + 1e-10)
        if values[(cy - y0) * width + cx - x0].isNaN { return .nan }
        var ix = Self.floorHalfBelow(x), iy = Self.floorHalfBelow(y)
        var rx = 1.5 - (x - Double(ix)), ry = 1.5 - (y - Double(iy))
        // Inside the raster, away from its last row and column, no void among the four: the
        // general case below without its tests (the same operations in the same order).
        if ix >= 0, iy >= 0, ix + 1 < rasterWidth, iy + 1 < rasterHeight {
            let row = values + (iy - y0) * width + ix - x0
            let a = row[0], b = row[1], c = row[width], d = row[width + 1]
            if !(a + b + c + d).isNaN {
                let wa = rx * ry, wb = (1 - rx) * ry, wc = rx * (1 - ry), wd = (1 - rx) * (1 - ry)
                let sum = Double(a) * wa + Double(b) * wb + Double(c) * wc + Double(d) * wd
                let weight = wa + wb + wc + wd
                if weight == 1 { return Float(sum) }
                if weight < 0.00001 { return .nan }
                return Float(sum / weight)
            }
        }
        if ix == -1 { ix = 0; rx = 1 }
        if iy == -1 { iy = 0; ry = 1 }
        let right = ix + 1 < rasterWidth, below = iy + 1 < rasterHeight
        let row = values + (iy - y0) * width + ix - x0
        var sum = 0.0, weight = 0.0
        @inline(__always) func add(_ v: Float, _ w: Double) {
            if !v.isNaN {
                sum += Double(v) * w
                weight += w
            }
        }
        add(row[0], rx * ry)
        if right { add(row[1], (1 - rx) * ry) }
        if below {
            add(row[width], rx * (1 - ry))
            if right { add(row[width + 1], (1 - rx) * (1 - ry)) }
        }
        if weight == 1 { return Float(sum) }
        if weight < 0.00001 { return .nan }
        return Float(sum / weight)
    }
}
