import Catalog
import CatalogSQLite
import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing
import TileGeometry
@testable import TrailMapServer
import TrailMapTestSupport

/// The whole purchase life cycle through the real server and real signatures.
@Suite struct StoreLifecycleTests {
    func products(_ r: some HTTPAnswer) -> [String: [String: Any]] {
        let list = StoreFixture.json(r)["products"] as? [[String: Any]] ?? []
        return Dictionary(list.map { ($0["productId"] as? String ?? "", $0) }, uniquingKeysWith: { a, _ in a })
    }

    @Test(arguments: ServingPath.allCases) func buyInstallUninstallRestoreRefund(path: ServingPath) async throws {
        let f = try await computed { try StoreFixture() }
        let tile = WebMercator.tile(lon: -105, lat: 39, zoom: 3)
        let tileURI = "/tiles/co/3/\(tile.x)/\(tile.y).png"
        try await f.live(path).test { client in
            let ann = try await StoreUser.register(client, email: "ann@example.com")
            let device = StoreFixture.json(try await ann.call(.post, "/api/v1/devices", ["name": "phone"]))["deviceId"] as? String ?? ""
            var listing = products(try await ann.call(.get, "/api/v1/catalog?device=\(device)"))
            #expect(listing["colorado"]?["status"] as? String == "for_sale")
            #expect(listing["base"]?["status"] as? String == "free")

            // Paid tiles are refused before the purchase; the free base map is public.
            #expect(try await client.execute(uri: tileURI, method: .get).status == .unauthorized)
            #expect(try await ann.call(.get, tileURI).status == .forbidden)
            let world = WebMercator.tile(lon: -105, lat: 39, zoom: 2)
            #expect(try await client.execute(uri: "/tiles/world/2/\(world.x)/\(world.y).png", method: .get).status == .ok)
            #expect(try await ann.call(.get, "/api/v1/downloads/colorado").status == .forbidden)

            let bought = try await ann.buy("colorado")
            #expect(bought.status == .created)
            #expect(StoreFixture.json(bought)["alreadyOwned"] as? Bool == false)
            let again = try await ann.buy("colorado")
            #expect(again.status == .ok && StoreFixture.json(again)["alreadyOwned"] as? Bool == true)
            #expect((StoreFixture.json(again)["message"] as? String)?.contains("free") == true)

            listing = products(try await ann.call(.get, "/api/v1/catalog?device=\(device)"))
            #expect(listing["colorado"]?["status"] as? String == "purchased")
            #expect(try await ann.call(.get, tileURI).status == .ok)
            let token = StoreFixture.json(try await ann.call(.post, "/api/v1/tile-tokens", ["productId": "colorado"]))
            let tileToken = try #require(token["token"] as? String)
            #expect(try await client.execute(uri: tileURI + "?token=\(tileToken)", method: .get).status == .ok)

            // Download, install, uninstall: the entitlement stays and the download stays free.
            let download = try await ann.call(.get, "/api/v1/downloads/colorado")
            #expect(download.status == .ok)
            let file = try Data(contentsOf: URL(fileURLWithPath: f.tiles.dir.file("co.mbtiles")))
            #expect(Data(Array(buffer: download.body)) == file)
            #expect(download.headers[.eTag] == "\"\(SHA256.hash(data: file).map { String(format: "%02x", $0) }.joined())\"")
            #expect(try await ann.call(.put, "/api/v1/devices/\(device)/installs/colorado", ["version": 1]).status == .ok)
            #expect(products(try await ann.call(.get, "/api/v1/catalog?device=\(device)"))["colorado"]?["status"] as? String == "installed")
            #expect(try await ann.call(.delete, "/api/v1/devices/\(device)/installs/colorado").status == .noContent)
            #expect(products(try await ann.call(.get, "/api/v1/catalog?device=\(device)"))["colorado"]?["status"] as? String == "purchased")
            #expect(try await ann.call(.get, "/api/v1/downloads/colorado").status == .ok)

            // A second device restores what the account owns.
            let ents = StoreFixture.json(try await ann.call(.get, "/api/v1/entitlements"))["entitlements"] as? [[String: Any]] ?? []
            #expect(ents.map { $0["productId"] as? String } == ["colorado"])
            #expect(ents.first?["status"] as? String == "active")
            let tablet = StoreFixture.json(try await ann.call(.post, "/api/v1/devices", ["name": "tablet"]))["deviceId"] as? String ?? ""
            #expect(products(try await ann.call(.get, "/api/v1/catalog?device=\(tablet)"))["colorado"]?["status"] as? String == "purchased")

            // Refund: a signed notification revokes; a replay changes nothing.
            let txn = try #require(StoreFixture.json(bought)["transactionId"] as? String)
            let note = try await ann.call(.post, "/api/v1/sandbox/notifications", ["notificationType": "REFUND", "transactionId": txn])
            let payload = try #require(StoreFixture.json(note)["signedPayload"] as? String)
            let posted = try await client.execute(
                uri: "/api/v1/store/notifications", method: .post,
                headers: [.contentType: "application/json"], body: StoreFixture.body(["signedPayload": payload]))
            #expect(StoreFixture.json(posted)["result"] as? String == "revoked")
            let replay = try await client.execute(
                uri: "/api/v1/store/notifications", method: .post,
                headers: [.contentType: "application/json"], body: StoreFixture.body(["signedPayload": payload]))
            #expect(StoreFixture.json(replay)["result"] as? String == "duplicate")
            #expect(try await ann.call(.get, tileURI).status == .forbidden)
            #expect(try await client.execute(uri: tileURI + "?token=\(tileToken)", method: .get).status == .forbidden)
            let refused = try await ann.call(.get, "/api/v1/downloads/colorado")
            #expect(refused.status == .forbidden && StoreFixture.errorCode(refused) == "revoked")
            #expect(products(try await ann.call(.get, "/api/v1/catalog?device=\(device)"))["colorado"]?["status"] as? String == "revoked")
            let log = try f.catalog.auditLog()
            #expect(log.map(\.action) == ["grant", "purchase_recorded", "revoke"])
        }
    }

    @Test func detailsAndAvailability() async throws {
        let f = try await computed { try StoreFixture() }
        try await f.app(available: ["colorado"]).test(.live) { client in
            let r = try await client.execute(uri: "/api/v1/catalog/colorado", method: .get)
            let j = StoreFixture.json(r)
            #expect(r.status == .ok)
            #expect(j["price"] as? [String: String] == ["amount": "4.99", "currency": "USD"])
            #expect((j["coverage"] as? [String: Any])?["type"] as? String == "Feature")
            #expect((j["previewTileURL"] as? String)?.contains("/tiles/co/2/") == true)
            #expect(j["minzoom"] as? Int == 2 && j["maxzoom"] as? Int == 4)
            let list = products(try await client.execute(uri: "/api/v1/catalog", method: .get))
            #expect(list["utah"]?["status"] as? String == "unavailable")
            let tree = StoreFixture.json(try await client.execute(uri: "/api/v1/catalog", method: .get))["categories"] as? [[String: Any]]
            #expect(tree?.map { $0["name"] as? String } == ["Base maps", "States"])
            #expect(try await client.execute(uri: "/api/v1/catalog/nope", method: .get).status == .notFound)

            let api = try await client.execute(uri: "/api/v1/openapi.json", method: .get)
            let doc = StoreFixture.json(api)
            #expect(doc["openapi"] as? String == "3.1.0")
            let paths = (doc["paths"] as? [String: Any]).map { Set($0.keys) } ?? []
            #expect(paths.isSuperset(of: ["/catalog", "/purchases", "/downloads/{productId}", "/store/notifications"]))
            let tilesets = StoreFixture.json(try await client.execute(uri: "/tiles", method: .get))["tilesets"] as? [[String: Any]] ?? []
            let paid = Dictionary(
                tilesets.map { ($0["id"] as? String ?? "", $0["paid"] as? Bool ?? false) }, uniquingKeysWith: { a, _ in a })
            #expect(paid == ["world": false, "co": true, "ut": true])
            let page = try await client.execute(uri: "/store", method: .get)
            #expect(
                page.status == .ok && String(buffer: page.body).contains("TrailMap store")
                    && String(buffer: page.body).contains("/viewer/leaflet.js"))
        }
    }
}
