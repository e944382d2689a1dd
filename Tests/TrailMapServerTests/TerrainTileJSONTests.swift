import Foundation
import Hummingbird
import HummingbirdTesting
import Raster
import Testing
import TileGeometry
import TileStore
@testable import TrailMapServer
import TrailMapTestSupport

/// A terrain bundle's TileJSON carries its `encoding` as MapLibre's `raster-dem` source reads it;
/// other bundles', and a bundle naming an encoding MapLibre does not know, carry none.
@Suite struct TerrainTileJSONTests {
    let fixture = ServerFixture()

    func write(_ name: String, encoding: String?) throws {
        var batch = [(tile: TileID, data: [UInt8])]()
        for t in TileRange(bounds: ServerFixture.box, zoom: 3) { batch.append((t, try ServerFixture.png(t))) }
        var meta = BundleMetadata(name: name, bounds: ServerFixture.box, minZoom: 3, maxZoom: 3)
        if let encoding { meta.extra["encoding"] = encoding }
        try TestBundle.write(batch, to: fixture.dir.file("\(name).mbtiles"), metadata: meta)
    }

    @Test func terrainBundlesNameTheirEncoding() async throws {
        try write("terrarium", encoding: "terrarium")
        try write("rgb", encoding: "mapbox")
        try write("odd", encoding: "<script>")
        try write("plain", encoding: nil)
        var config = ServerConfiguration(tilesDirectory: fixture.dir.path)
        config.port = 0
        try await TileServer.makeApplication(config: config).test(.live) { client in
            for (id, expected) in [("terrarium", "terrarium"), ("rgb", "mapbox"), ("odd", nil), ("plain", nil)] as [(String, String?)] {
                let r = try await client.execute(uri: "/tiles/\(id).json", method: .get)
                #expect(r.status == .ok)
                let doc = try #require(TileRoutesTests.json(r.body))
                #expect(doc["encoding"] as? String == expected, "\(id)")
                #expect((doc["encoding"] == nil) == (expected == nil), "\(id): no encoding field unless a known one")
            }
        }
    }
}
