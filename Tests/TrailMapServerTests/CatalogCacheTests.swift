import Catalog
import CatalogSQLite
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
@testable import TrailMapServer
import TrailMapTestSupport

/// The anonymous catalog listing is built once and kept until the catalog changes, including by
/// another process publishing while the server runs.
@Suite struct CatalogCacheTests {
    static func titles(_ r: TestResponse) -> [String: String] {
        let list = StoreFixture.json(r)["products"] as? [[String: Any]] ?? []
        return Dictionary(list.map { ($0["productId"] as? String ?? "", $0["title"] as? String ?? "") }, uniquingKeysWith: { a, _ in a })
    }

    @Test func anonymousListingFollowsAPublishFromElsewhere() async throws {
        let f = try await computed { try StoreFixture() }
        try await f.app().test(.live) { client in
            let first = try await client.execute(uri: "/api/v1/catalog", method: .get)
            let again = try await client.execute(uri: "/api/v1/catalog", method: .get)
            #expect(Self.titles(first)["colorado"] == "Colorado")
            #expect(Array(buffer: first.body) == Array(buffer: again.body))
            let gzipped = try await client.execute(uri: "/api/v1/catalog", method: .get, headers: [.acceptEncoding: "gzip"])
            #expect(gzipped.headers[.contentEncoding] == "gzip")

            // A second connection to the file, as `trailmap catalog publish` in another process.
            let other = try CatalogDatabase(path: f.catalog.path, hasher: PasswordHasher(rounds: 1 << 10))
            let file = f.tiles.dir.file("products.json")
            var json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: file))) as? [String: Any])
            var entries = try #require(json["products"] as? [[String: Any]])
            for i in entries.indices where entries[i]["productId"] as? String == "colorado" { entries[i]["title"] = "Colorado 2027" }
            json["products"] = entries
            try JSONSerialization.data(withJSONObject: json).write(to: URL(fileURLWithPath: file))
            _ = try other.publish(try ProductFile.load(path: file), tilesDirectory: f.tiles.dir.path)

            let after = try await client.execute(uri: "/api/v1/catalog", method: .get)
            #expect(Self.titles(after)["colorado"] == "Colorado 2027")
            let afterGzip = try await client.execute(uri: "/api/v1/catalog", method: .get, headers: [.acceptEncoding: "gzip"])
            #expect(afterGzip.headers[.contentEncoding] == "gzip" && afterGzip.body != gzipped.body)

            // Signed-in listings are per account: a purchase shows at once.
            let ann = try await APIUser.register(client, email: "ann@example.com")
            #expect(try await ann.buy("colorado").status == .created)
            let mine = StoreFixture.json(try await ann.call(.get, "/api/v1/catalog"))["products"] as? [[String: Any]] ?? []
            #expect(mine.first { $0["productId"] as? String == "colorado" }?["status"] as? String == "purchased")
            let anonymous =
                StoreFixture.json(try await client.execute(uri: "/api/v1/catalog", method: .get))["products"] as? [[String: Any]] ?? []
            #expect(anonymous.first { $0["productId"] as? String == "colorado" }?["status"] as? String == "for_sale")
        }
    }
}
