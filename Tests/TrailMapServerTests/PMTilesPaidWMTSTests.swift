import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing
import TileGeometry
import TileStore
@testable import TrailMapServer
import TrailMapTestSupport

/// A paid region served from a `.pmtiles` archive: WMTS GetTile, RESTful and KVP, needs the same
/// credentials as its tiles (401 without, 403 without the purchase, 200 with a bearer token or a
/// tile token) and answers the tile route's bytes and ETag.
@Suite struct PMTilesPaidWMTSTests {
    @Test func paidArchiveTilesNeedTheSameCredentialsThroughWMTS() async throws {
        let f = try await computed { try StoreFixture() }
        // The published Colorado bundle, now served as an archive.
        let bundle = f.tiles.dir.file("co.mbtiles")
        _ = try PMTilesExporter.export(from: bundle, to: f.tiles.dir.file("co.pmtiles"))
        try FileManager.default.removeItem(atPath: bundle)
        let t = WebMercator.tile(lon: -105, lat: 39, zoom: 3)
        let tileURI = "/tiles/co/3/\(t.x)/\(t.y).png"
        let rest = "/wmts/1.0.0/co/default/GoogleMapsCompatible/3/\(t.y)/\(t.x).png"
        let kvp =
            "/wmts?SERVICE=WMTS&REQUEST=GetTile&LAYER=co&STYLE=default&TILEMATRIXSET=GoogleMapsCompatible"
            + "&TILEMATRIX=3&TILEROW=\(t.y)&TILECOL=\(t.x)&FORMAT=image/png"
        try await f.app().test(.live) { client in
            for uri in [tileURI, rest, kvp] {
                let r = try await client.execute(uri: uri, method: .get)
                #expect(r.status == .unauthorized, "\(uri): \(r.status)")
            }
            let anonymous = String(buffer: try await client.execute(uri: rest, method: .get).body)
            #expect(anonymous.contains("<ExceptionReport") && anonymous.contains("paid"), "\(anonymous)")

            let ann = try await APIUser.register(client, email: "ann@example.com")
            for uri in [tileURI, rest, kvp] { #expect(try await ann.call(.get, uri).status == .forbidden, "\(uri) before buying") }
            #expect(try await ann.buy("colorado").status == .created)

            let direct = try await ann.call(.get, tileURI)
            #expect(direct.status == .ok && direct.headers[.contentType] == "image/png")
            let expected = try #require(try PMTilesReader(path: f.tiles.dir.file("co.pmtiles")).tile(t))
            #expect(Array(buffer: direct.body) == expected)
            for uri in [rest, kvp] {
                let r = try await ann.call(.get, uri)
                #expect(r.status == .ok && r.body == direct.body && r.headers[.eTag] == direct.headers[.eTag], "\(uri): \(r.status)")
                #expect(r.headers[.cacheControl]?.hasPrefix("private") == true)
            }
            let token = try #require(
                StoreFixture.json(try await ann.call(.post, "/api/v1/tile-tokens", ["productId": "colorado"]))["token"] as? String)
            for uri in [tileURI + "?token=\(token)", rest + "?token=\(token)", kvp + "&token=\(token)"] {
                let r = try await client.execute(uri: uri, method: .get)
                #expect(r.status == .ok && r.body == direct.body, "\(uri): \(r.status)")
            }
            let bob = try await APIUser.register(client, email: "bob@example.com")
            for uri in [rest, kvp] { #expect(try await bob.call(.get, uri).status == .forbidden, "\(uri) for another account") }
            // The free base map needs nothing.
            let world = WebMercator.tile(lon: -105, lat: 39, zoom: 2)
            #expect(
                try await client.execute(uri: "/wmts/1.0.0/world/default/GoogleMapsCompatible/2/\(world.y)/\(world.x).png", method: .get)
                    .status == .ok)
        }
    }
}
