import Raster

/// Lines given in an image's own pixels (contour lines, for one), drawn with the trails' stroke
/// (`StrokeRasterizer`): anti-aliased, round joins and caps, no casing. A pixel's coverage
/// depends only on its distance from the lines, so lines crossing from one tile into the next
/// meet where the tiles do when each tile is given the lines' points beyond its edges.
public enum PixelLines {
    /// Draws `lines` over `base` ("source over"): each line's points in `base`'s pixels
    /// (pixel (x, y)'s centre at (x + 0.5, y + 0.5)), `width` pixels wide in `color`. Points
    /// outside the image are fine; lines of fewer than two points and widths not above 0 draw nothing.
    public static func draw(_ lines: [[SIMD2<Double>]], width: Double, color: TrailColor, over base: inout RGBAImage) {
        guard width.isFinite, width > 0, color.alpha > 0, base.width > 0, base.height > 0 else { return }
        var raster = StrokeRasterizer(width: base.width, height: base.height, outerHalf: width / 2, lineHalf: width / 2)
        raster.begin(.unknown)
        var keep = [Bool]()
        var drew = false
        for line in lines where line.count >= 2 {
            guard line.allSatisfy({ $0.x.isFinite && $0.y.isFinite }) else { continue }
            keep.removeAll(keepingCapacity: true)
            keep.append(contentsOf: repeatElement(false, count: line.count))
            keep[0] = true
            keep[line.count - 1] = true
            StrokePath.simplify(line, 0, line.count - 1, &keep)
            var last = line[0]
            for i in 1..<line.count where keep[i] {
                raster.add(last, line[i])
                last = line[i]
                drew = true
            }
        }
        guard drew else { return }
        let overlay = RGBAImage(width: base.width, height: base.height, pixels: raster.image(casing: nil, colors: { _ in color }))
        Compositing.draw(overlay, over: &base)
    }
}
