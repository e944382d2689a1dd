import Foundation

/// A map sheet's neatline: the polygon inside which its map is, outside which lie the collar's
/// margins, legend and title. GDAL reports it as the `NEATLINE` metadata item (WKT, in the
/// raster's CRS) for geospatial PDFs, and copies it into rasters converted from them. Pixels whose
/// centres lie outside it are transparent, so a mosaic of such sheets never paints a collar over
/// its neighbour. Held in pixel/line coordinates of the full-resolution raster.
public struct Neatline: Sendable, Hashable {
    /// The ring's vertices in pixel/line coordinates (edges at integers), not closed.
    public let xs: [Double]
    public let ys: [Double]

    /// What a `NEATLINE` metadata item amounts to for a raster.
    public enum Reading: Sendable {
        /// It cuts the raster.
        case cuts(Neatline)
        /// It leaves every pixel inside (what GDAL reports for a PDF without a collar), or is no polygon.
        case cutsNothing
        /// Most of it lies off the raster: coordinates of another georeference, as `gdalwarp`
        /// copies a PDF's metadata into a raster of another CRS or extent. Not applied.
        case offTheRaster
    }

    /// The neatline of a raster `width` × `height` whose metadata item is `wkt`, through
    /// `locator` (CRS → pixels). Its edges are cut into 32 pieces before they are moved, so that
    /// they follow a non-affine georeference (control points, RPCs).
    static func read(wkt: String, locator: PixelGeolocator, affine: Bool, width: Int, height: Int) -> Reading {
        guard let (rxs, rys) = ring(wkt), rxs.count >= 3 else { return .cutsNothing }
        var xs = [Double](), ys = [Double]()
        let pieces = affine ? 1 : 32
        for i in rxs.indices {
            let j = (i + 1) % rxs.count
            for k in 0..<pieces {
                let f = Double(k) / Double(pieces)
                xs.append(rxs[i] + (rxs[j] - rxs[i]) * f)
                ys.append(rys[i] + (rys[j] - rys[i]) * f)
            }
        }
        locator.toPixels(xs: &xs, ys: &ys)
        guard xs.allSatisfy(\.isFinite), ys.allSatisfy(\.isFinite) else { return .offTheRaster }
        let n = Neatline(xs: xs, ys: ys)
        let w = Double(width), h = Double(height)
        // Most of the ring's box off the raster: not this raster's neatline.
        let (x0, x1, y0, y1) = (xs.min()!, xs.max()!, ys.min()!, ys.max()!)
        let overlap = max(0, min(x1, w) - max(x0, 0)) * max(0, min(y1, h) - max(y0, 0))
        guard overlap >= 0.5 * (x1 - x0) * (y1 - y0) else { return .offTheRaster }
        // Every corner pixel's centre inside, and no edge through the box of pixel centres:
        // nothing is cut.
        let (bx0, bx1, by0, by1) = (0.5, w - 0.5, 0.5, h - 0.5)
        let corners = [(bx0, by0), (bx1, by0), (bx0, by1), (bx1, by1)]
        var edgeThrough = false
        for i in xs.indices where !edgeThrough {
            let j = (i + 1) % xs.count
            edgeThrough = Self.segment((xs[i], ys[i]), (xs[j], ys[j]), meets: (bx0, bx1, by0, by1))
        }
        if !edgeThrough && corners.allSatisfy({ n.contains(x: $0.0, y: $0.1) }) { return .cutsNothing }
        return .cuts(n)
    }

    private init(xs: [Double], ys: [Double]) {
        self.xs = xs
        self.ys = ys
    }

    /// Whether the segment from `a` to `b` meets the box (clipped Liang–Barsky).
    static func segment(_ a: (Double, Double), _ b: (Double, Double), meets box: (Double, Double, Double, Double)) -> Bool {
        var t0 = 0.0, t1 = 1.0
        let dx = b.0 - a.0, dy = b.1 - a.1
        for (p, q) in [(-dx, a.0 - box.0), (dx, box.1 - a.0), (-dy, a.1 - box.2), (dy, box.3 - a.1)] {
            if p == 0 {
                if q < 0 { return false }
            } else {
                let r = q / p
                if p < 0 { t0 = max(t0, r) } else { t1 = min(t1, r) }
                if t0 > t1 { return false }
            }
        }
        return true
    }

    /// The outer ring of a WKT `POLYGON ((x y, x y, ...), ...)` (`POLYGON Z` too), without its
    /// closing vertex; nil for anything else.
    static func ring(_ wkt: String) -> (xs: [Double], ys: [Double])? {
        let text = wkt.trimmingCharacters(in: .whitespacesAndNewlines)
        guard text.uppercased().hasPrefix("POLYGON"), let first = text.firstIndex(of: "(") else { return nil }
        let afterFirst = text[text.index(after: first)...].drop(while: { $0.isWhitespace })
        guard afterFirst.first == "(" else { return nil }
        let body = afterFirst.dropFirst()
        guard let close = body.firstIndex(of: ")") else { return nil }
        var xs = [Double](), ys = [Double]()
        for point in body[..<close].split(separator: ",") {
            let tokens = point.split(whereSeparator: \.isWhitespace)
            let v = tokens.compactMap { Double($0) }
            guard v.count >= 2, v.count == tokens.count else { return nil }
            xs.append(v[0])
            ys.append(v[1])
        }
        if xs.count > 1, xs.first == xs.last, ys.first == ys.last {
            xs.removeLast()
            ys.removeLast()
        }
        return (xs, ys)
    }

    /// The window of full-resolution pixels (`x0..<x1`, `y0..<y1`) of a `width` × `height`
    /// raster outside which nothing is drawn, on the file's levels up to one whose pixels are
    /// `coarsest` full-resolution ones: the ring's box grown by half such a pixel and one more (a
    /// pixel is drawn when its centre is inside, so it reaches half its size past the ring),
    /// within the raster. A level the builder halves itself (`WindowPlan`) may reach up to one of
    /// its pixels further, as it does past the raster's own edges.
    public func drawnWindow(
        width: Int, height: Int, coarsest: (x: Double, y: Double) = (1, 1)
    )
        -> (x0: Int, y0: Int, x1: Int, y1: Int)
    {
        let (gx, gy) = (coarsest.x / 2 + 1, coarsest.y / 2 + 1)
        let x0 = max(0, min(width, Int((xs.min()! - gx).rounded(.down))))
        let x1 = max(x0, min(width, Int((xs.max()! + gx).rounded(.up))))
        let y0 = max(0, min(height, Int((ys.min()! - gy).rounded(.down))))
        let y1 = max(y0, min(height, Int((ys.max()! + gy).rounded(.up))))
        return (x0, y0, x1, y1)
    }

    /// Whether the point (pixel/line) lies inside the ring (even-odd rule).
    public func contains(x: Double, y: Double) -> Bool {
        var line = [Double]()
        crossings(atY: y, into: &line)
        return line.reduce(false) { inside, c in c <= x ? !inside : inside }
    }

    /// The x positions, sorted, where the ring's edges cross the line at `y` (an edge counts
    /// from its lower end up to but not including its upper one).
    func crossings(atY y: Double, into line: inout [Double]) {
        line.removeAll(keepingCapacity: true)
        var j = xs.count - 1
        for i in xs.indices {
            if (ys[i] > y) != (ys[j] > y) { line.append(xs[i] + (y - ys[i]) / (ys[j] - ys[i]) * (xs[j] - xs[i])) }
            j = i
        }
        line.sort()
    }

    /// Makes the pixels of an RGBA window (`x0`, `y0`, `width` × `height`, at a level whose
    /// pixels are `scaleX` × `scaleY` full-resolution ones) transparent where their centres lie
    /// outside the ring: one scanline of edge crossings a row.
    public func clip(
        _ out: UnsafeMutablePointer<UInt8>, x0: Int, y0: Int, width: Int, height: Int,
        scaleX: Double = 1, scaleY: Double = 1
    ) {
        var line = [Double]()
        for row in 0..<height {
            crossings(atY: (Double(y0 + row) + 0.5) * scaleY, into: &line)
            let pixels = out + row * width * 4
            var k = 0, inside = false
            for col in 0..<width {
                let x = (Double(x0 + col) + 0.5) * scaleX
                while k < line.count && line[k] <= x {
                    inside.toggle()
                    k += 1
                }
                if !inside { pixels[col * 4 + 3] = 0 }
            }
        }
    }
}
