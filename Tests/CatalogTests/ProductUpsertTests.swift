import Catalog
import Foundation
import Testing
import TrailMapAPI
import TrailMapTestSupport

/// The publish rules both backends share (`ProductUpsert`) where a product file meets what
/// accounts bought: an id that is a bought area is refused, and a bundle another product holds is
/// named first when both apply, on either backend alike.
@Suite struct ProductUpsertTests {
    /// Ann's bought area, from `AreaPurchaseTests`' fixture, and a spare copy of a bundle no product holds.
    static func boughtArea(_ backend: Backend) async throws -> (CatalogFixture, Product) {
        let f = try await AreaPurchaseTests.fixture(backend)
        let ann = try await f.account()
        let q = try await AreaPurchaseTests.quote(f, ann)
        let bought = try await f.store.buyArea(quoteID: q.id, purchase: AreaPurchaseTests.consumable("t1"), account: ann, now: Date())
        try FileManager.default.copyItem(atPath: f.files.dir.file("colorado.mbtiles"), toPath: f.files.dir.file("spare.mbtiles"))
        return (f, bought.area)
    }

    /// The reason of a product-file refusal, or nil.
    static func refusal(_ f: CatalogFixture, _ path: String) async -> String? {
        do {
            _ = try await f.publish(path)
            return nil
        } catch {
            guard case let .productFile(_, reason) = error else { return "\(error)" }
            return reason
        }
    }

    @Test(arguments: Backend.allCases)
    func aBoughtAreasIDIsNotPublishedOver(_ backend: Backend) async throws {
        let (f, area) = try await Self.boughtArea(backend)
        let path = try f.files.productFile([CatalogFiles.entry(area.id, bundle: "spare.mbtiles")], name: "over.json")
        #expect(await Self.refusal(f, path) == "product id \(area.id) is an area an account bought")
        let after = try #require(try await f.store.product(id: area.id))
        #expect(after.owner == area.owner && after.kind == .area && after.bundlePath == area.bundlePath)
    }

    @Test(arguments: Backend.allCases)
    func aHeldBundleIsNamedBeforeABoughtArea(_ backend: Backend) async throws {
        let (f, area) = try await Self.boughtArea(backend)
        let path = try f.files.productFile([CatalogFiles.entry(area.id, bundle: "colorado.mbtiles")], name: "both.json")
        #expect(await Self.refusal(f, path) == "bundle colorado already belongs to product colorado")
        #expect(try await f.store.product(id: area.id)?.owner == area.owner)
    }
}
