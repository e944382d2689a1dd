import Foundation
import Raster
import Testing
import TrailMapTestSupport
import TileGeometry
@testable import TrailRendering

/// One renderer drawing tiles from many threads at once (as the builder does) gives the tiles it
/// gives drawing them one by one, labels placed once per zoom whichever thread asks first.
@Suite(.computeThreads) struct ConcurrentRenderingTests {
    @Test func tilesDrawnConcurrentlyEqualTilesDrawnInTurn() async throws {
        let t0 = LabelPlacementTests.origin()
        let lines = LabelPlacementTests.network(origin: t0)
        let style = TrailStyle(labelMinZoom: 15)
        let tiles = (0..<16).map { (t0.x + $0 % 4, t0.y + $0 / 4) }
        let serial = TrailTileRenderer(lines: lines, style: style)
        let expected = try tiles.map { try serial.render(z: 16, x: $0.0, y: $0.1) }
        let shared = TrailTileRenderer(lines: lines, style: style)
        let got = try await withThrowingTaskGroup(of: (Int, RGBAImage).self) { group in
            for (i, t) in tiles.enumerated() {
                group.addTask { (i, try shared.render(z: 16, x: t.0, y: t.1)) }
            }
            var out = [RGBAImage?](repeating: nil, count: tiles.count)
            for try await (i, image) in group { out[i] = image }
            return out
        }
        #expect(got.map { $0! } == expected)
        #expect(!serial.labels(zoom: 16).isEmpty)
    }
}
