import Foundation
import Raster
import Testing
import TrailMapTestSupport
import TileGeometry
@testable import TrailRendering

/// Trail names along the lines: none overlapping, none cut at a tile edge, the same whatever
/// order tiles are drawn in.
@Suite(.computeThreads) struct LabelPlacementTests {
    static let zoom = 16
    static let clear = TrailColor(red: 0, green: 0, blue: 0, alpha: 0)
    /// Lines drawn invisible, so every pixel drawn belongs to a label.
    static let labelsOnly = TrailStyle(
        colors: Dictionary(uniqueKeysWithValues: TrailDifficultyStyleKey.allCases.map { ($0, clear) }),
        casingColor: clear, labelMinZoom: 15, labelPadding: 4, labelSpacing: 120)
    static let names = [
        "Bear Lake Trail", "Mars Ridge", "Hay Gulch Loop", "Colorado Trail", "Avalanche Creek",
        "Thompson Creek Trail", "Capitol Ditch", "Ute Trail", "Buckhorn", "Maroon–Snowmass Trail"
    ]

    /// A 4 x 4 block of tiles with many named lines crossing it and each other.
    static func network(origin t: TileID) -> [TrailLine] {
        var rng = SplitMix(state: 2026)
        let x0 = Double(t.x * 256), y0 = Double(t.y * 256)
        var lines = [TrailLine]()
        for i in 0..<24 {
            var x = x0 + rng.next() * 1024, y = y0 + rng.next() * 1024
            var heading = rng.next() * 2 * .pi
            var pts = [(x, y)]
            for _ in 0..<40 {
                heading += (rng.next() - 0.5) * 0.5
                x += cos(heading) * 30
                y += sin(heading) * 30
                pts.append((x, y))
            }
            lines.append(TilePixels.line("t\(i)", name: names[i % names.count], .easy, zoom: zoom, pts))
        }
        // Straight lines along the tile edges themselves, where no label can sit across.
        lines.append(TilePixels.line("edge-h", name: "Edge Row Trail", .easy, zoom: zoom, [(x0, y0 + 512), (x0 + 1024, y0 + 512)]))
        lines.append(TilePixels.line("edge-v", name: "Edge Column Trail", .easy, zoom: zoom, [(x0 + 256, y0), (x0 + 256, y0 + 1024)]))
        return lines
    }

    static func origin() -> TileID {
        let t = WebMercator.tile(lon: -106.95, lat: 39.40, zoom: zoom)
        return TileID(z: zoom, x: t.x & ~3, y: t.y & ~3)!
    }

    @Test func labelsNeitherOverlapNorCrossATileEdgeAndTheirPixelsStayInTheirBoxes() throws {
        let t0 = Self.origin()
        let renderer = TrailTileRenderer(lines: Self.network(origin: t0), style: Self.labelsOnly)
        let all = renderer.labels(zoom: Self.zoom)
        let block = all.filter { (t0.x..<(t0.x + 4)).contains($0.tileX) && (t0.y..<(t0.y + 4)).contains($0.tileY) }
        #expect(block.count >= 12, "a crowded block still gets labels (\(block.count))")
        #expect(Set(block.map(\.text)).count >= 6, "many trails are named")
        for (i, a) in all.enumerated() {
            for b in all[(i + 1)...] {
                #expect(
                    !a.box.expanded(by: 2).overlaps(b.box.expanded(by: 2)),
                    "\(a.text) and \(b.text) overlap (with half the padding each)")
            }
            let tile = 256.0
            #expect(
                a.box.minX >= Double(a.tileX) * tile && a.box.maxX <= Double(a.tileX + 1) * tile
                    && a.box.minY >= Double(a.tileY) * tile && a.box.maxY <= Double(a.tileY + 1) * tile,
                "\(a.text) lies inside its tile")
        }
        // Pixels: every tile of the block drawn on its own.
        var labelledTiles = 0
        for ty in t0.y..<(t0.y + 4) {
            for tx in t0.x..<(t0.x + 4) {
                let image = try renderer.render(z: Self.zoom, x: tx, y: ty)
                let boxes = block.filter { $0.tileX == tx && $0.tileY == ty }.map {
                    PixelBox(
                        minX: $0.box.minX - Double(tx * 256), minY: $0.box.minY - Double(ty * 256),
                        maxX: $0.box.maxX - Double(tx * 256), maxY: $0.box.maxY - Double(ty * 256))
                }
                var drawn = 0, stray = [String]()
                for row in 0..<256 {
                    for col in 0..<256 where image.alpha(col, row) > 0 {
                        drawn += 1
                        let px = PixelBox(minX: Double(col), minY: Double(row), maxX: Double(col + 1), maxY: Double(row + 1))
                        if !boxes.contains(where: { $0.overlaps(px) }) { stray.append("\(col),\(row)") }
                        if col == 0 || row == 0 || col == 255 || row == 255 { stray.append("edge \(col),\(row)") }
                    }
                }
                #expect(stray.isEmpty, "tile \(tx),\(ty): label pixels outside a label box or on the edge: \(stray.prefix(8))")
                #expect((drawn > 0) == !boxes.isEmpty, "tile \(tx),\(ty): labels placed in it are drawn")
                if drawn > 0 { labelledTiles += 1 }
            }
        }
        #expect(labelledTiles >= 6)
        // The lines along the tile edges keep their names off the edges.
        for label in all where label.lineID.hasPrefix("edge") {
            #expect(!(label.box.minY < Double(t0.y * 256 + 512) && label.box.maxY > Double(t0.y * 256 + 512)))
            #expect(!(label.box.minX < Double(t0.x * 256 + 256) && label.box.maxX > Double(t0.x * 256 + 256)))
        }
    }

    @Test func theSameLabelsWhateverOrderTilesAreDrawnIn() throws {
        let t0 = Self.origin()
        let lines = Self.network(origin: t0)
        var style = TrailStyle(labelMinZoom: 15)
        style.labelSpacing = 120
        let forward = TrailTileRenderer(lines: lines, style: style)
        let backward = TrailTileRenderer(lines: lines.reversed(), style: style)
        let tiles = (0..<16).map { (t0.x + $0 % 4, t0.y + $0 / 4) }
        var a = [RGBAImage](), b = [RGBAImage]()
        for (x, y) in tiles { a.append(try forward.render(z: Self.zoom, x: x, y: y)) }
        for (x, y) in tiles.reversed() { b.append(try backward.render(z: Self.zoom, x: x, y: y)) }
        #expect(a == b.reversed())
        #expect(forward.labels(zoom: Self.zoom) == backward.labels(zoom: Self.zoom))
    }

    @Test func noLabelsBelowTheLabelZoomAndLabelsFollowTheirLine() throws {
        let t0 = Self.origin()
        let lines = Self.network(origin: t0)
        let renderer = TrailTileRenderer(lines: lines, style: Self.labelsOnly)
        #expect(renderer.labels(zoom: 14).isEmpty)
        let atLabelZoom = renderer.labels(zoom: 15)
        #expect(!atLabelZoom.isEmpty)
        // The walks bend: some labels follow a bend rather than a straight chord.
        let bent = renderer.labels(zoom: Self.zoom).filter { l in
            let angles = l.glyphs.map(\.angle)
            return (angles.max()! - angles.min()!) > 0.15
        }
        #expect(!bent.isEmpty)
        let t14 = try renderer.render(z: 14, x: t0.x >> 2, y: t0.y >> 2)
        #expect(t14.isFullyTransparent, "invisible lines and no labels at z14")
        let byID = Dictionary(uniqueKeysWithValues: lines.map { ($0.id, $0) })
        for label in renderer.labels(zoom: Self.zoom) {
            let line = byID[label.lineID]!
            #expect(label.text == line.name)
            let pts = stride(from: 0, to: line.coordinates.count, by: 2).map {
                TilePixels.world(lon: line.coordinates[$0], lat: line.coordinates[$0 + 1], zoom: Self.zoom)
            }
            #expect(distance(label.centerX, label.centerY, toPolyline: pts) < 1, "\(label.text) sits on its line")
            // Glyph by glyph along the line, one per character here, left to right.
            #expect(label.glyphs.count == label.text.count)
            for g in label.glyphs {
                #expect(distance(g.x, g.y, toPolyline: pts) < 1, "each glyph of \(label.text) sits on its line")
                #expect(cos(g.angle) > -0.2, "\(label.text) reads left to right")
            }
        }
    }
}
