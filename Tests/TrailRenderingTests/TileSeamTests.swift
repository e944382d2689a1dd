import Foundation
import Raster
import Testing
import TrailMapTestSupport
import TileGeometry
@testable import TrailRendering

/// Strokes crossing a tile edge: two tiles drawn apart join as if drawn in one piece.
@Suite(.computeThreads) struct TileSeamTests {
    static let zoom = 15
    static let style = TrailStyle(lineWidth: ZoomStops(constant: 4), casingWidth: ZoomStops(constant: 2), labelMinZoom: 30)

    /// The two tiles side by side (or one above the other) as one image.
    static func stitch(_ a: RGBAImage, _ b: RGBAImage, horizontal: Bool) -> RGBAImage {
        var out = RGBAImage(width: horizontal ? 512 : 256, height: horizontal ? 256 : 512)
        for row in 0..<out.height {
            for col in 0..<out.width {
                let (src, c, r) =
                    horizontal
                    ? (col < 256 ? (a, col, row) : (b, col - 256, row))
                    : (row < 256 ? (a, col, row) : (b, col, row - 256))
                for k in 0..<4 { out.pixels[(row * out.width + col) * 4 + k] = src.pixels[(r * 256 + c) * 4 + k] }
            }
        }
        return out
    }

    @Test(arguments: [true, false])
    func linesAcrossAnEdgeAreContinuous(horizontal: Bool) throws {
        let t = WebMercator.tile(lon: -106.95, lat: 39.40, zoom: Self.zoom)
        let x0 = Double(t.x * 256), y0 = Double(t.y * 256)
        // In the coordinates of the two-tile window (the edge at 256 along its long side).
        var window: [[(Double, Double)]] = [
            [(200, 30), (300, 90), (260, 200), (330, 240)], // zigzags across the edge
            [(40, 128.3), (470, 128.3)], // straight across
            [(257.5, 10), (257.5, 245)], // beside the edge, just past it: its casing reaches back
            [(254.2, 20), (254.2, 120)], // beside the edge, just before it
            [(100, 250), (400, 5)] // diagonal
        ]
        if !horizontal { window = window.map { $0.map { ($0.1, $0.0) } } }
        let lines = window.enumerated().map { i, pts in
            TilePixels.line("l\(i)", .hard, zoom: Self.zoom, pts.map { ($0.0 + x0, $0.1 + y0) })
        }
        let renderer = TrailTileRenderer(lines: lines, style: Self.style)
        let first = try renderer.render(z: t.z, x: t.x, y: t.y)
        let second = try renderer.render(z: t.z, x: t.x + (horizontal ? 1 : 0), y: t.y + (horizontal ? 0 : 1))
        let whole = try renderer.renderWindow(
            zoom: t.z, originX: t.x * 256, originY: t.y * 256,
            width: horizontal ? 512 : 256, height: horizontal ? 256 : 512, tileSize: 256)
        let stitched = Self.stitch(first, second, horizontal: horizontal)
        // A stroke pixel's value depends only on where it lies in the world: the same drawn
        // either way, to the byte.
        var differing = [String]()
        for p in 0..<(whole.width * whole.height)
        where whole.rgba(p % whole.width, p / whole.width) != stitched.rgba(p % whole.width, p / whole.width) {
            differing.append("\(p % whole.width),\(p / whole.width)")
        }
        #expect(differing.count == 0, "tiles drawn apart differ from the window drawn whole at \(differing.prefix(12))")
        // Both sides of the edge are drawn where the lines cross it.
        let edgeA = (0..<256).filter { horizontal ? first.alpha(255, $0) > 0 : first.alpha($0, 255) > 0 }.count
        let edgeB = (0..<256).filter { horizontal ? second.alpha(0, $0) > 0 : second.alpha($0, 0) > 0 }.count
        #expect(edgeA > 100 && edgeB > 100, "edge coverage \(edgeA) and \(edgeB)")
        // And they agree pixel for pixel along the edge, within anti-aliasing of a diagonal.
        let agree = (0..<256).filter { r in
            let a = horizontal ? first.alpha(255, r) : first.alpha(r, 255)
            let b = horizontal ? second.alpha(0, r) : second.alpha(r, 0)
            return (a > 0) == (b > 0)
        }.count
        #expect(agree >= 250)
    }
}
