import Catalog
import CatalogSQLite
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
@testable import TrailMapServer
import TrailMapTestSupport

/// Hardening round 3, finding 2: with a store, a bundle is public only when a free product sells
/// it or the operator says so. A bundle sold only as areas, or claimed by no product, is closed:
/// anonymous `/tiles` and WMTS served them before. Nobody may read them: 403 for everyone (a
/// bundle sold as areas shows its preview zooms, as a paid region does).
@Suite struct TilesetAccessTests {
    /// The store fixture plus `hidden.mbtiles` (only an area product cuts from it) and
    /// `loose.mbtiles` (no product claims it).
    static func fixture() throws -> StoreFixture {
        let f = try StoreFixture()
        try f.tiles.bundle("hidden", shade: 3)
        try f.tiles.bundle("loose", shade: 4)
        let entries: [[String: Any]] = [
            [
                "productId": "hidden-area", "title": "Area", "category": "Areas", "price": ["amount": "0.99", "currency": "USD"],
                "area": ["maxBytes": 4_000_000, "from": ["hidden.mbtiles"]]
            ]
        ]
        let file = f.tiles.dir.file("hidden.json")
        try JSONSerialization.data(withJSONObject: ["products": entries]).write(to: URL(fileURLWithPath: file))
        _ = try f.catalog.publish(try ProductFile.load(path: file), tilesDirectory: f.tiles.dir.path)
        return f
    }

    static let tile = "2/0/1.png"
    /// A tile at the bundles' top zoom, above every preview.
    static let top = "4/3/6.png"

    @Test(arguments: ServingPath.allCases) func bundlesSoldOnlyAsAreasAndUnclaimedBundlesAreNotServed(path: ServingPath) async throws {
        let f = try await computed { try Self.fixture() }
        try await f.live(path, previewZooms: 3).test { client in
            let user = try await StoreUser.register(client, email: "ann@example.com")
            // Beyond the preview zooms (zooms 2-4, preview 2-3): closed to everyone, the area source too.
            for name in ["hidden", "loose"] {
                let anonymous = try await client.execute(uri: "/tiles/\(name)/\(Self.top)", method: .get)
                #expect(
                    anonymous.status == .forbidden && StoreFixture.errorCode(anonymous) == "tileset_not_public",
                    "\(name): \(anonymous.status)")
                let signedIn = try await user.call(.get, "/tiles/\(name)/\(Self.top)")
                #expect(
                    signedIn.status == .forbidden && StoreFixture.errorCode(signedIn) == "tileset_not_public", "\(name): \(signedIn.status)"
                )
                let wmts = try await client.execute(uri: "/wmts/1.0.0/\(name)/default/GoogleMapsCompatible/4/6/3.png", method: .get)
                #expect(wmts.status != .ok, "\(name) over WMTS")
            }
            // The preview zooms of a bundle area products cut from are open (the store's picture of
            // what an area buys), as a paid region's are; an unclaimed bundle has none.
            let preview = try await client.execute(uri: "/tiles/hidden/\(Self.tile)", method: .get)
            #expect(preview.status == .ok, "the area source's preview: \(preview.status)")
            let loose = try await client.execute(uri: "/tiles/loose/\(Self.tile)", method: .get)
            #expect(loose.status == .forbidden && StoreFixture.errorCode(loose) == "tileset_not_public")
            // The list marks them as not public, the area source with its preview and no product.
            let list = StoreFixture.json(try await client.execute(uri: "/tiles", method: .get))["tilesets"] as? [[String: Any]] ?? []
            let paid = Dictionary(list.map { ($0["id"] as? String ?? "", $0["paid"] as? Bool ?? false) }, uniquingKeysWith: { a, _ in a })
            #expect(paid["hidden"] == true && paid["loose"] == true && paid["world"] == false)
            let hidden = list.first { $0["id"] as? String == "hidden" }
            #expect(hidden?["previewMaxzoom"] as? Int == 3 && hidden?["productId"] == nil, "\(hidden ?? [:])")
            #expect(list.first { $0["id"] as? String == "loose" }?["previewMaxzoom"] == nil)
            // A free product's bundle stays public.
            #expect(try await client.execute(uri: "/tiles/world/\(Self.tile)", method: .get).status == .ok)
        }
    }

    @Test(arguments: ServingPath.allCases) func theOperatorCanMakeAnUnclaimedBundlePublic(path: ServingPath) async throws {
        let f = try await computed { try Self.fixture() }
        try await f.live(path, publicTilesets: ["loose"]).test { client in
            let loose = try await client.execute(uri: "/tiles/loose/\(Self.tile)", method: .get)
            let hidden = try await client.execute(uri: "/tiles/hidden/\(Self.tile)", method: .get)
            #expect(loose.status == .ok && hidden.status == .forbidden)
        }
    }
}
