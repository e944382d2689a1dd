import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing
import TileStore
@testable import TrailMapServer
import TrailMapTestSupport

/// `GET /tiles/{id}.pmtiles`: a paid region's archive is its buyer's only, whatever its preview
/// zooms open (401 anonymous, 403 before buying, 200 and a 206 range after, with a tile token too);
/// an `.mbtiles` tileset has no archive (404 `no_archive`).
@Suite struct ArchiveRouteTests {
    @Test func aPaidArchiveIsItsBuyersOnly() async throws {
        let f = try await computed { try StoreFixture() }
        let bundle = f.tiles.dir.file("co.mbtiles")
        _ = try PMTilesExporter.export(from: bundle, to: f.tiles.dir.file("co.pmtiles"))
        try FileManager.default.removeItem(atPath: bundle)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: f.tiles.dir.file("co.pmtiles")))
        try await f.app(previewZooms: 3).test(.live) { client in
            let list = StoreFixture.json(try await client.execute(uri: "/tiles", method: .get))["tilesets"] as? [[String: Any]] ?? []
            let co = list.first { $0["id"] as? String == "co" }
            #expect((co?["pmtiles"] as? String)?.hasSuffix("/tiles/co.pmtiles") == true && co?["previewMaxzoom"] != nil, "\(co ?? [:])")
            #expect(list.first { $0["id"] as? String == "world" }?["pmtiles"] == nil)

            #expect(try await client.execute(uri: "/tiles/co.pmtiles", method: .get).status == .unauthorized)
            let ann = try await APIUser.register(client, email: "ann@example.com")
            #expect(try await ann.call(.get, "/tiles/co.pmtiles").status == .forbidden)
            #expect(try await ann.buy("colorado").status == .created)
            let whole = try await ann.call(.get, "/tiles/co.pmtiles")
            #expect(
                whole.status == .ok && Array(buffer: whole.body) == [UInt8](bytes)
                    && whole.headers[.cacheControl]?.hasPrefix("private") == true)
            let token = try #require(
                StoreFixture.json(try await ann.call(.post, "/api/v1/tile-tokens", ["productId": "colorado"]))["token"] as? String)
            let ranged = try await client.execute(uri: "/tiles/co.pmtiles?token=\(token)", method: .get, headers: [.range: "bytes=0-6"])
            #expect(ranged.status == .partialContent && String(buffer: ranged.body) == "PMTiles")
            #expect(ranged.headers[.contentRange] == "bytes 0-6/\(bytes.count)")

            let mbtiles = try await client.execute(uri: "/tiles/world.pmtiles", method: .get)
            #expect(mbtiles.status == .notFound && StoreFixture.errorCode(mbtiles) == "no_archive")
        }
    }
}
