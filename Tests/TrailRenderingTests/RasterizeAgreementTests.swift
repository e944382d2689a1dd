import Foundation
import Raster
import Testing
import TrailMapTestSupport
import TileGeometry
@testable import TrailRendering

/// The overlay's pixels against GDAL's own rasterization of the same lines.
@Suite(.computeThreads) struct RasterizeAgreementTests {
    static let zoom = 15
    static let style = TrailStyle(lineWidth: ZoomStops(constant: 3), casingWidth: ZoomStops(constant: 1.5), labelMinZoom: 30)

    /// Random walks around and across one tile near Mars, Colorado (the caller picks the tile).
    static func walks(tile: TileID, count: Int, seed: UInt64) -> [TrailLine] {
        var rng = SplitMix(state: seed)
        return (0..<count).map { i in
            var x = Double(tile.x * 256) - 40 + rng.next() * 336
            var y = Double(tile.y * 256) - 40 + rng.next() * 336
            var heading = rng.next() * 2 * .pi
            var pts = [(x, y)]
            for _ in 0..<(10 + Int(rng.next() * 30)) {
                heading += (rng.next() - 0.5) * 1.2
                let step = 3 + rng.next() * 25
                x += cos(heading) * step
                y += sin(heading) * step
                pts.append((x, y))
            }
            return TilePixels.line("w\(i)", .moderate, zoom: zoom, pts)
        }
    }

    @Test func everyPixelGDALBurnsIsCoveredAndNoCoveredPixelLiesBeyondTheStroke() throws {
        let tile = WebMercator.tile(lon: -106.95, lat: 39.40, zoom: Self.zoom)
        let lines = Self.walks(tile: tile, count: 12, seed: 37)
        let dir = TemporaryDirectory()
        try writeGeoJSON(lines, to: dir.file("lines.geojson"))
        // GDAL projects the lines itself and burns every pixel each line touches.
        try GDALTools.run("ogr2ogr", ["-t_srs", "EPSG:3857", dir.file("lines3857.geojson"), dir.file("lines.geojson")])
        let b = tile.mercatorBounds
        let res = WebMercator.resolution(zoom: Self.zoom)
        try GDALTools.run(
            "gdal_rasterize",
            [
                "-q", "-at", "-burn", "255", "-tr", "\(res)", "\(res)",
                "-te", "\(b.minX)", "\(b.minY)", "\(b.maxX)", "\(b.maxY)",
                "-ot", "Byte", "-of", "GTiff", dir.file("lines3857.geojson"), dir.file("burnt.tif")
            ])
        try GDALTools.run("gdal_translate", ["-q", "-of", "ENVI", dir.file("burnt.tif"), dir.file("burnt.bin")])
        let burnt = [UInt8](try Data(contentsOf: URL(fileURLWithPath: dir.file("burnt.bin"))))
        #expect(burnt.count == 256 * 256)

        let image = try TrailTileRenderer(lines: lines, style: Self.style).render(z: tile.z, x: tile.x, y: tile.y)
        let polylines: [[(x: Double, y: Double)]] = lines.map { l in
            stride(from: 0, to: l.coordinates.count, by: 2).map { i in
                let w = TilePixels.world(lon: l.coordinates[i], lat: l.coordinates[i + 1], zoom: Self.zoom)
                return (w.x - Double(tile.x * 256), w.y - Double(tile.y * 256))
            }
        }
        let outerHalf = 3.0 / 2 + 1.5
        var burntCount = 0, coveredCount = 0, uncovered = [String](), outside = [String]()
        for row in 0..<256 {
            for col in 0..<256 {
                let a = image.alpha(col, row)
                if burnt[row * 256 + col] == 255 {
                    burntCount += 1
                    if a < 254 { uncovered.append("\(col),\(row) alpha \(a)") }
                }
                if a > 0 {
                    coveredCount += 1
                    let d = polylines.map { distance(Double(col) + 0.5, Double(row) + 0.5, toPolyline: $0) }.min()!
                    // A pixel the stroke touches has its centre within half a diagonal of the
                    // stroke's edge; one more pixel of slack for anti-aliasing.
                    if d > outerHalf + 1 { outside.append("\(col),\(row) at \(d)") }
                }
            }
        }
        #expect(burntCount > 500, "the lines cross the tile")
        #expect(coveredCount > burntCount * 2, "a stroke of 6 px covers more than the centre line")
        #expect(uncovered.isEmpty, "burnt by GDAL but not covered: \(uncovered.prefix(10))")
        #expect(outside.isEmpty, "covered beyond the stroke: \(outside.prefix(10))")
    }

    @Test func theWidthFollowsTheZoomStops() throws {
        // One straight horizontal line; its covered rows grow with the zoom's width.
        let style = TrailStyle(
            lineWidth: ZoomStops([.init(zoom: 12, value: 2), .init(zoom: 16, value: 10)]),
            casingWidth: ZoomStops(constant: 0), labelMinZoom: 30)
        func coveredRows(zoom: Int) throws -> Int {
            let t = WebMercator.tile(lon: -106.95, lat: 39.40, zoom: zoom)
            let y = Double(t.y * 256) + 128
            let line = TilePixels.line("h", zoom: zoom, [(Double(t.x * 256) - 50, y), (Double(t.x * 256) + 300, y)])
            let image = try TrailTileRenderer(lines: [line], style: style).render(z: zoom, x: t.x, y: t.y)
            return (0..<256).filter { image.alpha(128, $0) >= 128 }.count
        }
        #expect(try coveredRows(zoom: 12) == 2)
        #expect(try coveredRows(zoom: 14) == 6)
        #expect(try coveredRows(zoom: 16) == 10)
    }
}
