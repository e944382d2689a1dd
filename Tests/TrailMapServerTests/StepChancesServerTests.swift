import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing
import TileCache
import TileGeometry
import TileStore
@testable import TrailMapServer
import TrailMapTestSupport

/// A viewer without a cache of its own, through a real server: its steps give the tiles of its
/// next step chances the cache keeps them by, and a silent viewer's chances end.
@Suite struct StepChancesServerTests {
    let fixture = ServerFixture()

    /// A bundle with every tile of the fixture's box at zoom 8 (8 columns, 6 rows), one image for all.
    func zoom8Bundle() throws {
        let png = try ServerFixture.png(TileID(z: 8, x: 0, y: 0)!)
        let tiles = TileRange(bounds: ServerFixture.box, zoom: 8).map { (tile: $0, data: png) }
        let meta = BundleMetadata(name: "Steps", bounds: ServerFixture.box, minZoom: 8, maxZoom: 8)
        try TestBundle.write(tiles, to: fixture.dir.file("steps.mbtiles"), metadata: meta)
    }

    /// The predictor's time: a loaded machine may serve one viewport's requests seconds apart,
    /// so the test says when a step ends and how long a silence lasts.
    let clock = PredictorClock()

    func app() -> Application<TileResponder> {
        var config = ServerConfiguration(tilesDirectory: fixture.dir.path)
        config.port = 0
        config.adminToken = "s3cret"
        config.cache.clientHeader = "X-Viewer"
        config.cache.predictorClock = clock
        config.cache.pressure = PressureSettings(cgroupDirectory: nil)
        config.cache.pressure.pressureFile = nil
        return TileServer.makeApplication(config: config)
    }

    /// The `likely` figures of `/admin/cache`: bytes held for their chance, and keys with one.
    static func likely(_ client: any TestClientProtocol) async throws -> (bytes: Int, keys: Int)? {
        let r = try await client.execute(uri: "/admin/cache", method: .get, headers: [.authorization: "Bearer s3cret"])
        let json = (try? JSONSerialization.jsonObject(with: Data(Array(buffer: r.body))) as? [String: Any]) ?? [:]
        guard let likely = json["likely"] as? [String: Any], let b = likely["bytes"] as? Int, let k = likely["chance_keys"] as? Int
        else { return nil }
        return (b, k)
    }

    @Test func aViewerWithoutACacheGivesChancesThatEndWhenItFallsSilent() async throws {
        try zoom8Bundle()
        let nw = WebMercator.tile(lon: -109.9, lat: 41.9, zoom: 8), se = WebMercator.tile(lon: -101.1, lat: 36.1, zoom: 8)
        let cy = (nw.y + se.y) / 2
        try await app().test(.live) { client in
            #expect(try await Self.likely(client).map { $0.keys } == 0)
            // Four steps one column right, half a second apart, each the whole 3x3 viewport, centre first.
            for step in 0..<4 {
                let cx = nw.x + 1 + step
                var tiles = [(cx, cy)]
                for dx in -1...1 { for dy in -1...1 where dx != 0 || dy != 0 { tiles.append((cx + dx, cy + dy)) } }
                for (x, y) in tiles {
                    let r = try await client.execute(
                        uri: "/tiles/steps/8/\(x)/\(y).png", method: .get, headers: [HTTPField.Name("X-Viewer")!: "v"])
                    #expect(r.status == .ok)
                }
                if step < 3 { clock.advance(by: 500) }
            }
            let given = try #require(try await Self.likely(client))
            #expect(given.keys > 0, "the viewer's next step's tiles have chances")
            #expect(given.bytes > 0, "held tiles are kept for their chance")
            // Silent for longer than a chance lasts (1 s): the next request of another viewer takes
            // them back.
            clock.advance(by: 1_500)
            let other = try await client.execute(
                uri: "/tiles/steps/8/\(nw.x)/\(nw.y).png", method: .get, headers: [HTTPField.Name("X-Viewer")!: "w"])
            #expect(other.status == .ok)
            let after = try #require(try await Self.likely(client))
            #expect(after.keys == 0 && after.bytes == 0, "\(after)")
        }
    }
}
