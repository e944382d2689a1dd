import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import TileGeometry
@testable import TrailMapServer
import TrailMapTestSupport

/// A paid tileset's preview (`PreviewZooms`) over real HTTP: its lowest zooms are served to anyone
/// on every tile path (Hummingbird's, the event-loop fast path, WMTS), its higher zooms still need
/// an entitlement; `GET /tiles` names the preview's top zoom and the base map.
@Suite struct PreviewZoomTests {
    @Sendable static func at(_ z: Int) -> TileID { WebMercator.tile(lon: -105, lat: 39, zoom: z) }
    @Sendable static func uri(_ z: Int) -> String { "/tiles/co/\(z)/\(at(z).x)/\(at(z).y).png" }
    @Sendable static func wmts(_ z: Int) -> String { "/wmts/1.0.0/co/default/GoogleMapsCompatible/\(z)/\(at(z).y)/\(at(z).x).png" }

    @Test func theRuleKeepsTheTopZoomPaid() {
        #expect(PreviewZooms.maxZoom(minZoom: 9, maxZoom: 14, levels: 3) == 11)
        #expect(PreviewZooms.maxZoom(minZoom: 2, maxZoom: 4, levels: 3) == 3)
        #expect(PreviewZooms.maxZoom(minZoom: 2, maxZoom: 4, levels: 9) == 3, "never the top zoom")
        #expect(PreviewZooms.maxZoom(minZoom: 5, maxZoom: 5, levels: 3) == nil, "a one-zoom tileset has no preview")
        #expect(PreviewZooms.maxZoom(minZoom: 2, maxZoom: 8, levels: 0) == nil)
    }

    @Test(arguments: ServingPath.allCases) func previewZoomsAreOpenAndTheRestIsPaidOnEveryPath(path: ServingPath) async throws {
        let f = try await computed { try StoreFixture() } // co: paid, zooms 2-4, so its preview is 2-3
        try await f.live(path, previewZooms: 3).test { client in
            // Hummingbird's path (the first request reads the paid map).
            for z in [2, 3] {
                let r = try await client.execute(uri: Self.uri(z), method: .get)
                #expect(r.status == .ok && r.headers[.contentType] == "image/png", "zoom \(z): \(r.status)")
                #expect(r.headers[.cacheControl]?.hasPrefix("public") == true)
            }
            #expect(try await client.execute(uri: Self.uri(4), method: .get).status == .unauthorized)
            // The event-loop path, pipelined on one connection while the paid map is fresh.
            let port = try #require(client.port)
            let requests = [2, 3, 4, 3].map { "GET \(Self.uri($0)) HTTP/1.1\r\nHost: x\r\n\r\n" }.joined()
            let raw = try await RawHTTP.exchange(port: port, requests, heads: [false, false, false, false])
            #expect(raw.map(\.status) == [200, 200, 401, 200])
            // WMTS answers as the tile route does.
            #expect(try await client.execute(uri: Self.wmts(3), method: .get).status == .ok)
            #expect(try await client.execute(uri: Self.wmts(4), method: .get).status == .unauthorized)
            // The buyer reads every zoom.
            let ann = try await StoreUser.register(client, email: "ann@example.com")
            #expect(try await ann.buy("colorado").status == .created)
            #expect(try await ann.call(.get, Self.uri(4)).status == .ok)
            // The list says where the preview ends and which tileset is the base map.
            let list = StoreFixture.json(try await client.execute(uri: "/tiles", method: .get))
            let sets = try #require(list["tilesets"] as? [[String: Any]])
            #expect(sets.first { $0["id"] as? String == "co" }?["previewMaxzoom"] as? Int == 3)
            #expect(sets.first { $0["id"] as? String == "world" }?["previewMaxzoom"] == nil)
            #expect(list["base"] as? String == "world")
        }
    }

    @Test(arguments: ServingPath.allCases) func withoutPreviewEveryPaidZoomNeedsAPurchase(path: ServingPath) async throws {
        let f = try await computed { try StoreFixture() }
        let t = WebMercator.tile(lon: -105, lat: 39, zoom: 2)
        try await f.live(path).test { client in
            #expect(try await client.execute(uri: "/tiles/co/2/\(t.x)/\(t.y).png", method: .get).status == .unauthorized)
            let port = try #require(client.port)
            let raw = try await RawHTTP.exchange(
                port: port, "GET /tiles/co/2/\(t.x)/\(t.y).png HTTP/1.1\r\nHost: x\r\n\r\n", heads: [false])
            #expect(raw.map(\.status) == [401])
            let list = StoreFixture.json(try await client.execute(uri: "/tiles", method: .get))
            #expect((list["tilesets"] as? [[String: Any]])?.first { $0["id"] as? String == "co" }?["previewMaxzoom"] == nil)
        }
    }
}
