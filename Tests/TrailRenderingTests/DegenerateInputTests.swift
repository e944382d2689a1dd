import Foundation
import Raster
import Testing
import TrailMapTestSupport
import TileGeometry
@testable import TrailRendering

/// Empty, single-point, invalid and huge lines are reported or drawn, never a crash.
@Suite(.computeThreads) struct DegenerateInputTests {
    static let style = TrailStyle(lineWidth: ZoomStops(constant: 4), casingWidth: ZoomStops(constant: 1), labelMinZoom: 12)

    @Test func emptySinglePointAndInvalidCoordinatesAreReported() throws {
        let t = WebMercator.tile(lon: -106.95, lat: 39.40, zoom: 14)
        let y = Double(t.y * 256) + 128
        let x0 = Double(t.x * 256)
        var broken = TilePixels.line(
            "gap", name: "Gap Trail", .easy, zoom: 14, [(x0 + 10, y), (x0 + 100, y), (x0 + 125, y), (x0 + 150, y), (x0 + 240, y)])
        // The third point is not a coordinate: the line breaks there.
        broken.coordinates[4] = .nan
        let lines = [
            TrailLine(id: "empty", name: "Nothing", coordinates: []),
            TrailLine(id: "one", name: "Dot", coordinates: [-106.95, 39.4]),
            TrailLine(id: "odd", coordinates: [-106.95, 39.4, -106.94]),
            TrailLine(id: "far", coordinates: [-106.95, 39.4, 500, 39.4, -106.94, .infinity]),
            broken
        ]
        let renderer = TrailTileRenderer(lines: lines, style: Self.style)
        #expect(
            Set(renderer.issues.map { "\($0)" })
                == Set(
                    [
                        TrailLineIssue.tooFewPoints(id: "empty", count: 0), .tooFewPoints(id: "one", count: 1),
                        .oddCoordinateCount(id: "odd"), .tooFewPoints(id: "odd", count: 1),
                        .invalidPoints(id: "far", count: 2), .invalidPoints(id: "gap", count: 1)
                    ].map { "\($0)" }))
        let image = try renderer.render(z: 14, x: t.x, y: t.y)
        // Both halves of the broken line are drawn, and nothing bridges the gap at x 100...150.
        #expect(image.alpha(50, 128) == 255 && image.alpha(200, 128) == 255)
        #expect(image.alpha(125, 128) == 0)
        for z in [0, 5, 14, 22] {
            let w = WebMercator.tile(lon: -106.95, lat: 39.40, zoom: z)
            _ = try renderer.render(z: z, x: w.x, y: w.y)
        }
    }

    @Test func aLineAcrossTheAntimeridianIsBrokenThereNotDrawnRoundTheWorld() throws {
        // Fiji: 179.5 E to 179.5 W at 17 S.
        let line = TrailLine(id: "fiji", difficulty: .hard, coordinates: [179.0, -17, 179.9, -17, -179.9, -17, -179.0, -17])
        let renderer = TrailTileRenderer(lines: [line], style: Self.style)
        #expect(renderer.issues == [.antimeridianCrossings(id: "fiji", count: 1)])
        // At zoom 1 the world is 512 px wide: the two halves sit at its two ends, and nothing
        // crosses the middle of the map.
        let west = try renderer.render(z: 1, x: 0, y: 1), east = try renderer.render(z: 1, x: 1, y: 1)
        let row = Int(TilePixels.world(lon: 0, lat: -17, zoom: 1).y) - 256
        #expect(west.alpha(1, row) > 0 && east.alpha(254, row) > 0, "both halves are drawn")
        #expect((10..<246).allSatisfy { west.alpha($0, row) == 0 && east.alpha($0, row) == 0 }, "no line round the world")
    }

    @Test func badTileAddressesAndSizesAreErrors() {
        let renderer = TrailTileRenderer(lines: [], style: Self.style)
        #expect(throws: TrailRenderingError.invalidTile(z: 3, x: 8, y: 0)) { try renderer.render(z: 3, x: 8, y: 0) }
        #expect(throws: TrailRenderingError.invalidTile(z: -1, x: 0, y: 0)) { try renderer.render(z: -1, x: 0, y: 0) }
        #expect(throws: TrailRenderingError.invalidTile(z: 40, x: 0, y: 0)) { try renderer.render(z: 40, x: 0, y: 0) }
        #expect(throws: TrailRenderingError.invalidTileSize(0)) { try renderer.render(z: 1, x: 0, y: 0, tileSize: 0) }
        #expect(throws: TrailRenderingError.invalidTileSize(100_000)) { try renderer.render(z: 1, x: 0, y: 0, tileSize: 100_000) }
        #expect((try? renderer.render(z: 0, x: 0, y: 0))?.isFullyTransparent == true)
    }

    @Test func aMillionVertexLineIsDrawnFromOnlyItsNearbyPieces() throws {
        // A wiggling walk of a million vertices about 1 m apart, over some 20 km.
        var rng = SplitMix(state: 7)
        var lon = -107.0, lat = 39.3
        var coords = [Double]()
        coords.reserveCapacity(2_000_000)
        var heading = 0.3
        for _ in 0..<1_000_000 {
            heading += (rng.next() - 0.5) * 0.2
            lon += cos(heading) * 0.000_012
            lat += sin(heading) * 0.000_009
            coords.append(lon); coords.append(lat)
        }
        let line = TrailLine(id: "huge", name: "Very Long Trail", difficulty: .hard, coordinates: coords)
        let start = Date()
        let renderer = TrailTileRenderer(lines: [line], style: Self.style)
        #expect(renderer.trails.chunks.count > 10_000, "the line is split into pieces for the index")
        var drawn = 0
        for z in [8, 10, 12, 16] {
            // The tiles along the line at this zoom (every 50,000th vertex's tile).
            var tiles = Set<TileID>()
            for i in stride(from: 0, to: 1_000_000, by: 50_000) {
                tiles.insert(WebMercator.tile(lon: coords[2 * i], lat: coords[2 * i + 1], zoom: z))
            }
            for t in tiles {
                let image = try renderer.render(z: t.z, x: t.x, y: t.y)
                if !image.isFullyTransparent { drawn += 1 }
            }
        }
        #expect(drawn >= 20, "the line shows in the tiles it passes through")
        // A tile far from the line finds nothing and draws nothing.
        let far = WebMercator.tile(lon: -104, lat: 38, zoom: 16)
        #expect(try renderer.render(z: far.z, x: far.x, y: far.y).isFullyTransparent)
        let seconds = Date().timeIntervalSince(start)
        #expect(seconds < 120, "took \(seconds) s")
    }
}
