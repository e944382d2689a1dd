import Foundation
import Raster
import Testing
import TrailMapTestSupport
import TileGeometry
@testable import TrailRendering

/// Round caps and joins: the stroke is everything within half its width of the line.
@Suite(.computeThreads) struct StrokeShapeTests {
    @Test func endsAndCornersAreRound() throws {
        let z = 15
        let style = TrailStyle(lineWidth: ZoomStops(constant: 8), casingWidth: ZoomStops(constant: 2), labelMinZoom: 30)
        let t = WebMercator.tile(lon: -106.95, lat: 39.40, zoom: z)
        let x0 = Double(t.x * 256), y0 = Double(t.y * 256)
        // An L: from (60, 100) east to (180, 100), then south to (180, 220). Outer half-width 6.
        let line = TilePixels.line("L", .easy, zoom: z, [(x0 + 60, y0 + 100), (x0 + 180, y0 + 100), (x0 + 180, y0 + 220)])
        let image = try TrailTileRenderer(lines: [line], style: style).render(z: z, x: t.x, y: t.y)
        // Round cap: 5 px beyond the start on the axis is covered, but not 5 px beyond diagonally
        // (a square cap would cover both).
        #expect(image.alpha(55, 100) == 255 && image.alpha(55, 99) == 255)
        #expect(image.alpha(55, 94) == 0 && image.alpha(55, 105) == 0)
        // Round join: the outer corner's diagonal point 5.5 px out each way lies 7.8 px from the
        // corner, beyond the stroke (a miter join would fill it), while 5 px straight out is covered.
        #expect(image.alpha(185, 94) == 0)
        #expect(image.alpha(185, 100) == 255 && image.alpha(180, 94) >= 240)
        // The inside of the stroke is the line's colour, the rim the casing's.
        let easy = style.color(for: .easy)
        #expect(image.rgba(120, 100) == [easy.red, easy.green, easy.blue, 255])
        #expect(image.rgba(120, 95) == [255, 255, 255, 255])
    }
}
