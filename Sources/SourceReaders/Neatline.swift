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

    /// The neatline of a raster `width` × `height` whose metadata item is `wkt`, through
    /// `locator` (CRS → pixels); nil when there is none, it cannot be read, or it leaves every
    /// pixel inside (what GDAL reports for a PDF without a collar).
    init?(wkt: String, locator: PixelGeolocator, width: Int, height: Int) {
        guard var (xs, ys) = Self.ring(wkt), xs.count >= 3 else { return nil }
        locator.toPixels(xs: &xs, ys: &ys)
        guard xs.allSatisfy(\.isFinite), ys.allSatisfy(\.isFinite) else { return nil }
        self.xs = xs
        self.ys = ys
        // Every corner pixel inside, and no vertex inside the raster: nothing is cut.
        let w = Double(width), h = Double(height)
        let corners = [(0.5, 0.5), (w - 0.5, 0.5), (0.5, h - 0.5), (w - 0.5, h - 0.5)]
        let vertexInside = zip(xs, ys).contains { $0 > 0.5 && $0 < w - 0.5 && $1 > 0.5 && $1 < h - 0.5 }
        if !vertexInside && corners.allSatisfy({ contains(x: $0.0, y: $0.1) }) { return nil }
    }

    /// The outer ring of a WKT `POLYGON ((x y, x y, ...), ...)`, without its closing vertex; nil
    /// for anything else.
    static func ring(_ wkt: String) -> (xs: [Double], ys: [Double])? {
        let text = wkt.trimmingCharacters(in: .whitespacesAndNewlines)
        guard text.uppercased().hasPrefix("POLYGON"), let open = text.range(of: "(("),
              let close = text.range(of: ")", range: open.upperBound..<text.endIndex) else { return nil }
        var xs = [Double](), ys = [Double]()
        for point in text[open.upperBound..<close.lowerBound].split(separator: ",") {
            let v = point.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }).compactMap { Double($0) }
            guard v.count >= 2 else { return nil }
            xs.append(v[0])
            ys.append(v[1])
        }
        if xs.count > 1, xs.first == xs.last, ys.first == ys.last {
            xs.removeLast()
            ys.removeLast()
        }
        return (xs, ys)
    }

    /// Whether the point (pixel/line) lies inside the ring (even-odd rule).
    public func contains(x: Double, y: Double) -> Bool {
        var inside = false
        var j = xs.count - 1
        for i in xs.indices {
            if (ys[i] > y) != (ys[j] > y), x < xs[i] + (y - ys[i]) / (ys[j] - ys[i]) * (xs[j] - xs[i]) {
                inside.toggle()
            }
            j = i
        }
        return inside
    }

    /// Makes the pixels of an RGBA window (`x0`, `y0`, `width` × `height`, at a level whose
    /// pixels are `scaleX` × `scaleY` full-resolution ones) transparent where their centres lie
    /// outside the ring: one scanline of edge crossings a row.
    public func clip(_ out: UnsafeMutablePointer<UInt8>, x0: Int, y0: Int, width: Int, height: Int,
                     scaleX: Double = 1, scaleY: Double = 1) {
        var crossings = [Double]()
        for row in 0..<height {
            let y = (Double(y0 + row) + 0.5) * scaleY
            crossings.removeAll(keepingCapacity: true)
            var j = xs.count - 1
            for i in xs.indices {
                if (ys[i] > y) != (ys[j] > y) {
                    crossings.append(xs[i] + (y - ys[i]) / (ys[j] - ys[i]) * (xs[j] - xs[i]))
                }
                j = i
            }
            crossings.sort()
            let line = out + row * width * 4
            var k = 0, inside = false
            for col in 0..<width {
                let x = (Double(x0 + col) + 0.5) * scaleX
                while k < crossings.count && crossings[k] <= x {
                    inside.toggle()
                    k += 1
                }
                if !inside { line[col * 4 + 3] = 0 }
            }
        }
    }
}
