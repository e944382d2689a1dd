import Foundation
import Raster
import Testing
import TrailMapTestSupport
import TileGeometry
@testable import TrailRendering

/// Colour by difficulty, the casing around the line, and drawing over a base tile.
@Suite(.computeThreads) struct DifficultyColourTests {
    static let zoom = 14
    static let style = TrailStyle(
        lineWidth: ZoomStops(constant: 4), casingColor: TrailColor(red: 250, green: 250, blue: 240),
        casingWidth: ZoomStops(constant: 2), labelMinZoom: 30)

    /// Five horizontal lines, one per difficulty, centred on the pixel edges above rows 24, 72, 120, 168, 216.
    static func rows(_ t: TileID) -> [TrailLine] {
        TrailDifficultyStyleKey.allCases.enumerated().map { i, d in
            let y = Double(t.y * 256) + 24 + Double(i) * 48
            return TilePixels.line(d.rawValue, d, zoom: zoom, [(Double(t.x * 256) - 20, y), (Double(t.x * 256) + 280, y)])
        }
    }

    @Test func eachDifficultyHasItsColourAndTheCasingIsAroundIt() throws {
        let t = WebMercator.tile(lon: -106.95, lat: 39.40, zoom: Self.zoom)
        let image = try TrailTileRenderer(lines: Self.rows(t), style: Self.style).render(z: t.z, x: t.x, y: t.y)
        for (i, d) in TrailDifficultyStyleKey.allCases.enumerated() {
            let row = 24 + i * 48
            let c = Self.style.color(for: d)
            // The line covers rows row-2...row+1 fully; the casing the two rows either side.
            for col in [10, 128, 250] {
                for r in (row - 2)...(row + 1) {
                    #expect(image.rgba(col, r) == [c.red, c.green, c.blue, 255], "\(d) at \(col),\(r)")
                }
                for r in [row - 4, row - 3, row + 2, row + 3] {
                    #expect(image.rgba(col, r) == [250, 250, 240, 255], "casing of \(d) at \(col),\(r)")
                }
                #expect(image.alpha(col, row - 5) == 0 && image.alpha(col, row + 4) == 0, "transparent beyond the casing")
            }
        }
        // Distinct colours for distinct difficulties.
        #expect(Set(TrailDifficultyStyleKey.allCases.map { Self.style.color(for: $0).description }).count == 5)
    }

    @Test func aRestyledDifficultyChangesOnlyItsLines() throws {
        let t = WebMercator.tile(lon: -106.95, lat: 39.40, zoom: Self.zoom)
        var style = Self.style
        style.colors[.hard] = TrailColor(hex: "#ff00ff")!
        let image = try TrailTileRenderer(lines: Self.rows(t), style: style).render(z: t.z, x: t.x, y: t.y)
        let before = try TrailTileRenderer(lines: Self.rows(t), style: Self.style).render(z: t.z, x: t.x, y: t.y)
        #expect(image.rgba(128, 24 + 2 * 48) == [255, 0, 255, 255])
        for (i, _) in TrailDifficultyStyleKey.allCases.enumerated() where i != 2 {
            #expect(image.rgba(128, 24 + i * 48) == before.rgba(128, 24 + i * 48))
        }
    }

    @Test func drawnOverABaseTileSourceOver() throws {
        let t = WebMercator.tile(lon: -106.95, lat: 39.40, zoom: Self.zoom)
        let renderer = TrailTileRenderer(lines: Self.rows(t), style: Self.style)
        var base = RGBAImage(width: 256, height: 256, fill: (10, 90, 30, 255))
        try renderer.render(z: t.z, x: t.x, y: t.y, over: &base)
        let easy = Self.style.color(for: .easy)
        #expect(base.rgba(128, 24) == [easy.red, easy.green, easy.blue, 255])
        #expect(base.rgba(128, 50) == [10, 90, 30, 255], "the base shows where there is no line")
        // An anti-aliased edge pixel blends the casing with the base.
        let overlay = try renderer.render(z: t.z, x: t.x, y: t.y)
        let edge = (0..<256).first { overlay.alpha(128, $0) > 0 && overlay.alpha(128, $0) < 255 }
        if let e = edge {
            #expect(base.rgba(128, e)[3] == 255 && base.rgba(128, e) != [10, 90, 30, 255])
        }
        var small = RGBAImage(width: 128, height: 128)
        #expect(throws: TrailRenderingError.baseSizeMismatch(width: 128, height: 128, tileSize: 256)) {
            try renderer.render(z: t.z, x: t.x, y: t.y, over: &small)
        }
    }
}
