import Catalog
import Crypto
import Foundation
import Testing
import TileGeometry
import TileStore
import TrailMapAPI
import TrailMapTestSupport

@Suite struct PublishTests {
    @Test func sizeHashBoundsAndZoomsComeFromTheBundle() throws {
        let f = try CatalogFixture()
        try f.publishSample()
        let p = try #require(try f.db.product(id: "colorado"))
        let data = try Data(contentsOf: URL(fileURLWithPath: f.dir.file("colorado.mbtiles")))
        #expect(p.size == Int64(data.count))
        #expect(p.sha256 == SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined())
        #expect(p.minZoom == 3 && p.maxZoom == 5)
        #expect(abs(p.bounds.west - CatalogFixture.colorado.west) < 1e-6)
        #expect(p.version == 1 && !p.free && p.tileset == "colorado")
        #expect(try f.db.product(id: "base")?.free == true)
    }

    @Test func categoryTreeNestsPaths() throws {
        let f = try CatalogFixture()
        try f.publishSample()
        let tree = try f.db.categoryTree()
        #expect(tree.map(\.name) == ["Base maps", "National Parks", "States"])
        #expect(tree[1].children.map(\.path) == ["National Parks/Rocky Mountain"])
    }

    @Test func aNewBundleIsANewVersionAndInstallsSeeAnUpdate() throws {
        let f = try CatalogFixture()
        try f.publishSample()
        let a = try f.account()
        let device = try f.db.addDevice(account: a, name: "phone")
        _ = try f.db.recordPurchase(CatalogFixture.purchase("colorado", id: "1000"), account: a)
        try f.db.setInstalled(productID: "colorado", version: 1, deviceID: device.id, account: a)
        #expect(try f.db.listing(account: a, deviceID: device.id, available: nil, only: "colorado").first?.status == .installed)

        let file = try ProductFile.load(path: f.dir.file("products.json"))
        let again = try f.db.publish(file, tilesDirectory: f.dir.path)
        #expect(again.map(\.change) == [.unchanged, .unchanged, .unchanged])

        try f.bundle("colorado", seed: 9)
        let results = try f.db.publish(file, tilesDirectory: f.dir.path)
        #expect(results.first { $0.productId == "colorado" }?.change == .newVersion)
        #expect(try f.db.product(id: "colorado")?.version == 2)
        let item = try #require(try f.db.listing(account: a, deviceID: device.id, available: nil, only: "colorado").first)
        #expect(item.status == .updateAvailable && item.installedVersion == 1)
    }

    @Test func levelsOfDetailComeFromTheBundleAndANewVersionUpdatesThem() throws {
        let f = try CatalogFixture()
        try f.layeredBundle("quads")
        let path = try f.productFile([CatalogFixture.entry("quads", bundle: "quads.mbtiles")])
        _ = try f.db.publish(try ProductFile.load(path: path), tilesDirectory: f.dir.path)
        let p = try #require(try f.db.product(id: "quads"))
        #expect(p.layers == CatalogFixture.quadLayers)
        #expect(BundleLayer.summary(p.layers) == CatalogFixture.quadSummary)
        #expect(p.minZoom == 8 && p.maxZoom == 15)
        // Stored with the product: a second connection to the file reads them back.
        let reopened = try CatalogDatabase(path: f.dir.file("catalog.sqlite"))
        #expect(try reopened.product(id: "quads")?.layers == CatalogFixture.quadLayers)

        // A new bundle with other levels is a new version with the new levels.
        let fewer = Array(CatalogFixture.quadLayers.prefix(2))
        try f.layeredBundle("quads", seed: 7, layers: fewer)
        let results = try f.db.publish(try ProductFile.load(path: path), tilesDirectory: f.dir.path)
        #expect(results.map(\.change) == [.newVersion])
        let updated = try #require(try f.db.product(id: "quads"))
        #expect(updated.version == 2 && updated.layers == fewer)
        #expect(BundleLayer.summary(updated.layers) == "30-minute maps, zooms 8–11; 7.5-minute maps, zooms 12–15")

        // A bundle that records no levels (built before them) publishes with none.
        try f.bundle("quads", seed: 8, zooms: 8...15)
        _ = try f.db.publish(try ProductFile.load(path: path), tilesDirectory: f.dir.path)
        #expect(try f.db.product(id: "quads")?.layers == [])
    }

    @Test func invalidLevelsOfDetailAreAPublishErrorNamingTheBundle() throws {
        let f = try CatalogFixture()
        try f.bundle("colorado")
        try f.bundle("quads", zooms: 8...15, extra: [BundleLayer.metadataKey: #"[{"name": "quads-30"}]"#])
        let path = try f.productFile([CatalogFixture.entry("colorado", bundle: "colorado.mbtiles"),
                                      CatalogFixture.entry("quads", bundle: "quads.mbtiles")])
        #expect {
            try f.db.publish(try ProductFile.load(path: path), tilesDirectory: f.dir.path)
        } throws: { error in
            guard case let CatalogError.bundle(bundle, reason)? = error as? CatalogError else { return false }
            return bundle.hasSuffix("/quads.mbtiles") && reason == #"metadata "trailmap:layers" is not a valid layer list: "title" is missing at layer 1"#
        }
        #expect(try f.db.products().isEmpty, "one bad bundle publishes nothing")
    }

    static func badEntries(_ name: String) -> [[String: Any]] {
        switch name {
        case "bad id": [CatalogFixture.entry("bad id", bundle: "colorado.mbtiles")]
        case "traversal": [CatalogFixture.entry("x", bundle: "../colorado.mbtiles")]
        case "price": [CatalogFixture.entry("x", bundle: "colorado.mbtiles", price: "-1")]
        case "twice": [CatalogFixture.entry("x", bundle: "colorado.mbtiles"), CatalogFixture.entry("x", bundle: "a.mbtiles")]
        default: [CatalogFixture.entry("x", bundle: "colorado.mbtiles", category: "States//Colorado")]
        }
    }

    @Test(arguments: [("bad id", "invalid productId"), ("traversal", "bundle must be"), ("price", "price amount"),
                      ("twice", "listed twice"), ("category", "category")])
    func badProductFilesAreRefused(name: String, message: String) throws {
        let f = try CatalogFixture()
        let path = try f.productFile(Self.badEntries(name))
        #expect { try ProductFile.load(path: path) } throws: { "\($0)".contains(message) }
    }

    @Test func aMissingBundlePublishesNothing() throws {
        let f = try CatalogFixture()
        try f.bundle("colorado")
        let path = try f.productFile([CatalogFixture.entry("colorado", bundle: "colorado.mbtiles"),
                                      CatalogFixture.entry("utah", bundle: "utah.mbtiles")])
        #expect(throws: CatalogError.self) { try f.db.publish(try ProductFile.load(path: path), tilesDirectory: f.dir.path) }
        #expect(try f.db.products().isEmpty)
    }

    @Test func notJSONIsAClearError() throws {
        let f = try CatalogFixture()
        let path = f.dir.file("broken.json")
        try Data("{\"products\": [{\"productId\": 3}]}".utf8).write(to: URL(fileURLWithPath: path))
        #expect { try ProductFile.load(path: path) } throws: { "\($0)".contains("broken.json") }
    }
}
