import Catalog
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
import TrailMapTestSupport
import TileStore
@testable import TrailMapServer

/// The product JSON lists a bundle's levels of detail, and the catalog's answers keep to the
/// served OpenAPI document.
@Suite struct ProductLevelsTests {
    /// Levels within the test bundle's zooms 2...4, lower first.
    static let layers = [
        BundleLayer(name: "overview", title: "Overview maps", kind: .series, minzoom: 2, maxzoom: 3, sources: ["overview.tif"]),
        BundleLayer(name: "quads-7.5", title: "7.5-minute maps", kind: .series, minzoom: 4, maxzoom: 4, sources: ["a.tif", "b.tif"]),
        BundleLayer(name: "trails", title: "Trails", kind: .overlay, minzoom: 2, maxzoom: 4, sources: ["trails.tif"])
    ]

    @Test func productJSONListsTheLevels() async throws {
        let f = try await computed { try StoreFixture(coloradoLayers: Self.layers) }
        try await f.app().test(.live) { client in
            let detail = StoreFixture.json(try await client.execute(uri: "/api/v1/catalog/colorado", method: .get))
            let levels = try #require(detail["levels"] as? [[String: Any]])
            #expect(levels.map { $0["name"] as? String } == ["overview", "quads-7.5", "trails"])
            #expect(levels.map { $0["title"] as? String } == ["Overview maps", "7.5-minute maps", "Trails"])
            #expect(levels.map { $0["kind"] as? String } == ["series", "series", "overlay"])
            #expect(levels.map { $0["minzoom"] as? Int } == [2, 4, 2] && levels.map { $0["maxzoom"] as? Int } == [3, 4, 4])
            #expect(
                levels.map { $0["summary"] as? String } == [
                    "Overview maps, zooms 2–3", "7.5-minute maps, zoom 4", "Trails overlay, zooms 2–4"
                ])
            #expect(levels.allSatisfy { $0["sources"] == nil }, "source file names stay out of the store")
            #expect(
                detail["levelsSummary"] as? String == "Overview maps, zooms 2–3; 7.5-minute maps, zoom 4; Trails overlay, zooms 2–4")

            // The listing carries them too; a bundle that records none has an empty list and summary.
            let list =
                StoreFixture.json(try await client.execute(uri: "/api/v1/catalog", method: .get))["products"] as? [[String: Any]] ?? []
            let byID = Dictionary(list.map { ($0["productId"] as? String ?? "", $0) }, uniquingKeysWith: { a, _ in a })
            #expect(byID["colorado"]?["levelsSummary"] as? String == detail["levelsSummary"] as? String)
            #expect((byID["colorado"]?["levels"] as? [Any])?.count == 3)
            #expect((byID["base"]?["levels"] as? [Any])?.isEmpty == true && byID["base"]?["levelsSummary"] as? String == "")
        }
    }

    @Test func catalogAnswersKeepToTheServedOpenAPIDocument() async throws {
        let f = try await computed { try StoreFixture(coloradoLayers: Self.layers) }
        try await f.app().test(.live) { client in
            let contract = OpenAPIContract(document: StoreFixture.json(try await client.execute(uri: "/api/v1/openapi.json", method: .get)))
            let listSchema = try #require(contract.responseSchema(path: "/catalog", method: "get", status: "200"))
            let detailSchema = try #require(contract.responseSchema(path: "/catalog/{productId}", method: "get", status: "200"))
            let notFoundSchema = try #require(contract.responseSchema(path: "/catalog/{productId}", method: "get", status: "404"))

            let list = try JSONSerialization.jsonObject(
                with: Data(Array(buffer: try await client.execute(uri: "/api/v1/catalog", method: .get).body)))
            #expect(contract.violations(list, listSchema) == [])
            for id in ["colorado", "base"] {
                let detail = try JSONSerialization.jsonObject(
                    with: Data(Array(buffer: try await client.execute(uri: "/api/v1/catalog/\(id)", method: .get).body)))
                #expect(contract.violations(detail, detailSchema) == [], "\(id)")
            }
            let missing = try JSONSerialization.jsonObject(
                with: Data(Array(buffer: try await client.execute(uri: "/api/v1/catalog/nope", method: .get).body)))
            #expect(contract.violations(missing, notFoundSchema) == [])

            // The check has teeth: a product without its levels, or with a level of an unknown kind, breaks the schema.
            var broken = try #require(list as? [String: Any])
            var products = try #require(broken["products"] as? [[String: Any]])
            products[0]["levels"] = nil
            products[1]["levels"] = [["name": "x", "title": "X", "kind": "photo", "minzoom": 1, "maxzoom": 2, "summary": "X"]]
            broken["products"] = products
            #expect(contract.violations(broken, listSchema).count == 2)
        }
    }
}
