import Catalog
import CatalogPostgres
import Crypto
import Foundation
import Testing
import TileGeometry
import TileStore
import TrailMapAPI
import TrailMapTestSupport

/// Publishing product files, versions, levels of detail and categories, on both backends; the
/// product file's own checks.
@Suite struct PublishTests {
    @Test(arguments: Backend.allCases)
    func sizeHashBoundsAndZoomsComeFromTheBundle(_ backend: Backend) async throws {
        let f = try await CatalogFixture(backend)
        try await f.publishSample()
        let p = try #require(try await f.store.product(id: "colorado"))
        let data = try Data(contentsOf: URL(fileURLWithPath: f.files.dir.file("colorado.mbtiles")))
        #expect(p.size == Int64(data.count))
        #expect(p.sha256 == SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined())
        #expect(p.minZoom == 3 && p.maxZoom == 5)
        #expect(abs(p.bounds.west - CatalogFiles.colorado.west) < 1e-6)
        #expect(p.version == 1 && !p.free && p.tileset == "colorado")
        #expect(p.price.amount == "4.99" && p.price.currency == "USD" && p.title == "Colorado" && p.description == "Trails of colorado")
        #expect(try await f.store.product(id: "base")?.free == true)
        #expect(try await f.store.product(id: "utah") == nil)
        // Ordered by category, then title.
        #expect(try await f.store.products().map(\.id) == ["base", "rocky", "colorado"])
    }

    @Test(arguments: Backend.allCases)
    func categoryTreeNestsPaths(_ backend: Backend) async throws {
        let f = try await CatalogFixture(backend)
        try await f.publishSample()
        let tree = try await f.store.categoryTree()
        #expect(tree.map(\.name) == ["Base maps", "National Parks", "States"])
        #expect(tree[1].children.map(\.path) == ["National Parks/Rocky Mountain"])
        #expect(tree[2].children.map(\.path) == ["States/Colorado"])
    }

    @Test(arguments: Backend.allCases)
    func aNewBundleIsANewVersionAndInstallsSeeAnUpdate(_ backend: Backend) async throws {
        let f = try await CatalogFixture(backend)
        try await f.publishSample()
        let a = try await f.account()
        let device = try await f.store.addDevice(account: a, name: "phone")
        _ = try await f.store.recordPurchase(CatalogFixture.purchase("colorado", id: "1000"), account: a)
        try await f.store.setInstalled(productID: "colorado", version: 1, deviceID: device.id, account: a)
        #expect(try await f.store.listing(account: a, deviceID: device.id, available: nil, only: "colorado").first?.status == .installed)

        let file = f.files.dir.file("products.json")
        #expect(try await f.publish(file).map(\.change) == [.unchanged, .unchanged, .unchanged])

        try f.files.bundle("colorado", seed: 9)
        let results = try await f.publish(file)
        #expect(results.first { $0.productId == "colorado" }?.change == .newVersion)
        #expect(results.first { $0.productId == "colorado" }?.version == 2)
        #expect(try await f.store.product(id: "colorado")?.version == 2)
        let item = try #require(try await f.store.listing(account: a, deviceID: device.id, available: nil, only: "colorado").first)
        #expect(item.status == .updateAvailable && item.installedVersion == 1)
        try await f.store.setInstalled(productID: "colorado", version: 2, deviceID: device.id, account: a)
        #expect(try await f.store.listing(account: a, deviceID: device.id, available: nil, only: "colorado").first?.status == .installed)
        #expect(
            await CatalogFixture.code {
                try await f.store.setInstalled(productID: "colorado", version: 3, deviceID: device.id, account: a)
            } == "unknown_version")
    }

    @Test(arguments: Backend.allCases)
    func levelsOfDetailComeFromTheBundleAndANewVersionUpdatesThem(_ backend: Backend) async throws {
        let f = try await CatalogFixture(backend)
        try f.files.layeredBundle("quads")
        let path = try f.files.productFile([CatalogFiles.entry("quads", bundle: "quads.mbtiles")])
        _ = try await f.publish(path)
        let p = try #require(try await f.store.product(id: "quads"))
        #expect(p.layers == CatalogFiles.quadLayers)
        #expect(BundleLayer.summary(p.layers) == CatalogFiles.quadSummary)
        #expect(p.minZoom == 8 && p.maxZoom == 15)
        // Stored with the product: the catalog opened again reads them back.
        let reopened = try await f.reopen()
        #expect(try await reopened.product(id: "quads")?.layers == CatalogFiles.quadLayers)
        (reopened as? PostgresCatalog)?.close()

        // A new bundle with other levels is a new version with the new levels.
        let fewer = Array(CatalogFiles.quadLayers.prefix(2))
        try f.files.layeredBundle("quads", seed: 7, layers: fewer)
        #expect(try await f.publish(path).map(\.change) == [.newVersion])
        let updated = try #require(try await f.store.product(id: "quads"))
        #expect(updated.version == 2 && updated.layers == fewer)
        #expect(BundleLayer.summary(updated.layers) == "30-minute maps, zooms 8–11; 7.5-minute maps, zooms 12–15")

        // A bundle that records no levels (built before them) publishes with none.
        try f.files.bundle("quads", seed: 8, zooms: 8...15)
        _ = try await f.publish(path)
        #expect(try await f.store.product(id: "quads")?.layers == [])
    }

    @Test(arguments: Backend.allCases)
    func invalidLevelsOfDetailAreAPublishErrorNamingTheBundle(_ backend: Backend) async throws {
        let f = try await CatalogFixture(backend)
        try f.files.bundle("colorado")
        try f.files.bundle("quads", zooms: 8...15, extra: [BundleLayer.metadataKey: #"[{"name": "quads-30"}]"#])
        let path = try f.files.productFile([
            CatalogFiles.entry("colorado", bundle: "colorado.mbtiles"),
            CatalogFiles.entry("quads", bundle: "quads.mbtiles")
        ])
        await #expect {
            try await f.publish(path)
        } throws: { error in
            guard case let CatalogError.bundle(bundle, reason)? = error as? CatalogError else { return false }
            return bundle.hasSuffix("/quads.mbtiles")
                && reason == #"metadata "trailmap:layers" is not a valid layer list: "title" is missing at layer 1"#
        }
        #expect(try await f.store.products().isEmpty, "one bad bundle publishes nothing")
    }

    @Test(arguments: Backend.allCases)
    func aMissingBundlePublishesNothing(_ backend: Backend) async throws {
        let f = try await CatalogFixture(backend)
        try f.files.bundle("colorado")
        let path = try f.files.productFile([
            CatalogFiles.entry("colorado", bundle: "colorado.mbtiles"),
            CatalogFiles.entry("utah", bundle: "utah.mbtiles")
        ])
        #expect(await CatalogFixture.code { _ = try await f.publish(path) } == "invalid_bundle")
        #expect(try await f.store.products().isEmpty)
        #expect(try await f.store.categoryTree().isEmpty)
    }

    @Test(arguments: Backend.allCases)
    func aBundleBelongsToOneProduct(_ backend: Backend) async throws {
        let f = try await CatalogFixture(backend)
        try await f.publishSample()
        let path = try f.files.productFile([CatalogFiles.entry("co2", bundle: "colorado.mbtiles")], name: "again.json")
        await #expect {
            try await f.publish(path)
        } throws: { error in
            guard case let CatalogError.productFile(_, reason)? = error as? CatalogError else { return false }
            return reason == "bundle colorado already belongs to product colorado"
        }
        #expect(try await f.store.product(id: "co2") == nil)
    }

    @Test(arguments: Backend.allCases)
    func publishingMovesTheChangeStamp(_ backend: Backend) async throws {
        let f = try await CatalogFixture(backend)
        let before = try await f.store.changeStamp()
        #expect(try await f.store.changeStamp() == before, "reading moves nothing")
        try await f.publishSample()
        // PostgreSQL's stamp may come by NOTIFY after the commit: polled (10 s only guards a hang).
        var after = before
        for _ in 0..<1000 where after == before {
            after = try await f.store.changeStamp()
            if after == before { try await Task.sleep(for: .milliseconds(10)) }
        }
        #expect(after != before)
    }

    static func badEntries(_ name: String) -> [[String: Any]] {
        switch name {
        case "bad id": [CatalogFiles.entry("bad id", bundle: "colorado.mbtiles")]
        case "traversal": [CatalogFiles.entry("x", bundle: "../colorado.mbtiles")]
        case "price": [CatalogFiles.entry("x", bundle: "colorado.mbtiles", price: "-1")]
        case "twice": [CatalogFiles.entry("x", bundle: "colorado.mbtiles"), CatalogFiles.entry("x", bundle: "a.mbtiles")]
        default: [CatalogFiles.entry("x", bundle: "colorado.mbtiles", category: "States//Colorado")]
        }
    }

    @Test(arguments: [
        ("bad id", "invalid productId"), ("traversal", "bundle must be"), ("price", "price amount"),
        ("twice", "listed twice"), ("category", "category")
    ])
    func badProductFilesAreRefused(name: String, message: String) throws {
        let files = CatalogFiles()
        let path = try files.productFile(Self.badEntries(name))
        #expect { try ProductFile.load(path: path) } throws: { "\($0)".contains(message) }
    }

    @Test func notJSONIsAClearError() throws {
        let files = CatalogFiles()
        let path = files.dir.file("broken.json")
        try Data("{\"products\": [{\"productId\": 3}]}".utf8).write(to: URL(fileURLWithPath: path))
        #expect { try ProductFile.load(path: path) } throws: { "\($0)".contains("broken.json") }
    }
}
