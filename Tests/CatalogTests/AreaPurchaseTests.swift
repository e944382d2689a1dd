@testable import Catalog
import Foundation
import Testing
import TileGeometry
import TileStore
import TrailMapAPI
import TrailMapTestSupport

/// Area products and bought areas in the catalog, on both backends: publishing, quotes, buying
/// (once per transaction, never twice per quote), who sees a bought area, refunds.
@Suite struct AreaPurchaseTests {
    /// The sample store plus an area product cutting from colorado and rocky.
    static func fixture(_ backend: Backend) async throws -> CatalogFixture {
        let f = try await CatalogFixture(backend)
        _ = try f.files.writeSample()
        var entries = [
            CatalogFiles.entry("base", bundle: "world.mbtiles", price: "0", category: "Base maps"),
            CatalogFiles.entry("colorado", bundle: "colorado.mbtiles"),
            CatalogFiles.entry("rocky", bundle: "rocky.mbtiles", price: "2.99", category: "National Parks/Rocky Mountain")
        ]
        entries.append([
            "productId": "area", "title": "Area around you", "category": "Areas", "price": ["amount": "0.99", "currency": "USD"],
            "area": ["maxBytes": 1_000_000, "from": ["rocky.mbtiles", "colorado.mbtiles"]]
        ])
        _ = try await f.publish(try f.files.productFile(entries))
        return f
    }

    /// A quote of `account` for the area product, with a bundle file of `size` bytes.
    static func quote(
        _ f: CatalogFixture, _ account: Account, expires: Date = Date().addingTimeInterval(600)
    ) async throws -> AreaQuoteRecord {
        let id = AreaQuoteRecord.newID()
        let path = f.files.dir.file("\(id).mbtiles")
        try Data(repeating: 7, count: 1234).write(to: URL(fileURLWithPath: path))
        let q = AreaQuoteRecord(
            id: id, accountId: account.id, productId: "area", title: "Area around 40.30°N 105.70°W (5 km)",
            bundlePath: path, size: 1234, sha256: String(repeating: "a", count: 64), tiles: 9, minZoom: 3, maxZoom: 9,
            requestedMaxZoom: 9, bounds: GeoBounds(west: -105.76, south: 40.25, east: -105.64, north: 40.35),
            createdAt: Date(), expiresAt: expires)
        _ = try await f.store.saveAreaQuote(q, keepPerAccount: 8)
        return q
    }

    static func consumable(_ id: String, product: String = "area") -> StorePurchase {
        CatalogFixture.purchase(product, id: id)
    }

    @Test(arguments: Backend.allCases)
    func anAreaProductIsPublishedFromItsBundlesAndSoldOnlyPerArea(_ backend: Backend) async throws {
        let f = try await Self.fixture(backend)
        let offer = try #require(try await f.store.product(id: "area"))
        #expect(
            offer.kind == .areaProduct && offer.areaOffer == AreaOffer(maxBytes: 1_000_000, from: ["rocky.mbtiles", "colorado.mbtiles"]))
        #expect(offer.bounds == CatalogFiles.colorado && offer.minZoom == 3 && offer.maxZoom == 9, "the union of its bundles")
        #expect(offer.size == 1_000_000 && offer.owner == nil)
        let a = try await f.account()
        #expect(
            await CatalogFixture.code { _ = try await f.store.recordPurchase(CatalogFixture.purchase("area", id: "r1"), account: a) }
                == "area_product")
        #expect(await CatalogFixture.code { _ = try await f.store.downloadable(productID: "area", account: a) } == "area_product")
        #expect(try await f.count("transactions") == 0)
        #expect(try await f.store.listing(account: nil, deviceID: nil, available: nil, only: "area").first?.status == .forSale)
        // The terms are the version: the same terms publish unchanged, a new cap is a new version.
        #expect(
            try await f.publish(
                try f.files.productFile([
                    [
                        "productId": "area", "title": "Area around you", "category": "Areas",
                        "price": ["amount": "0.99", "currency": "USD"],
                        "area": ["maxBytes": 2_000_000, "from": ["rocky.mbtiles"]]
                    ]
                ])
            ).first?.version == 2)
        // A missing bundle or one of another format publishes nothing.
        #expect(
            await CatalogFixture.code {
                _ = try await f.publish(
                    try f.files.productFile([
                        [
                            "productId": "area2", "title": "A", "category": "Areas",
                            "price": ["amount": "1", "currency": "USD"],
                            "area": ["maxBytes": 1_000_000, "from": ["nowhere.mbtiles"]]
                        ]
                    ]))
            } == "invalid_bundle")
        var webp = BundleMetadata(name: "webp", bounds: CatalogFiles.colorado, minZoom: 3, maxZoom: 3)
        webp.format = "webp"
        _ = try TestBundle.write(
            [(tile: try #require(TileID(z: 3, x: 1, y: 3)), data: [UInt8]([1, 2, 3]))], to: f.files.dir.file("webp.mbtiles"), metadata: webp
        )
        #expect(
            await CatalogFixture.code {
                _ = try await f.publish(
                    try f.files.productFile([
                        [
                            "productId": "area2", "title": "A", "category": "Areas",
                            "price": ["amount": "1", "currency": "USD"],
                            "area": ["maxBytes": 1_000_000, "from": ["rocky.mbtiles", "webp.mbtiles"]]
                        ]
                    ]))
            } == "invalid_product_file")
        #expect(try await f.store.product(id: "area2") == nil)
    }

    @Test(arguments: Backend.allCases)
    func aQuoteIsBoughtOnceAndTheAreaIsItsOwnersAlone(_ backend: Backend) async throws {
        let f = try await Self.fixture(backend)
        let ann = try await f.account(), bob = try await f.account("bob@example.com")
        let q = try await Self.quote(f, ann)
        let bought = try await f.store.buyArea(quoteID: q.id, purchase: Self.consumable("t1"), account: ann, now: Date())
        #expect(!bought.alreadyRecorded && bought.area.id == q.areaIDIfBought && bought.area.kind == .area && bought.area.owner == ann.id)
        #expect(
            bought.area.size == 1234 && bought.area.bundlePath == q.bundlePath
                && bought.area.areaOrigin == AreaOrigin(of: "area", quote: q.id))
        // The same transaction again is the same area; nothing new is written.
        let again = try await f.store.buyArea(quoteID: q.id, purchase: Self.consumable("t1"), account: ann, now: Date())
        #expect(again.alreadyRecorded && again.area.id == bought.area.id)
        #expect(try await f.count("transactions") == 1)
        #expect(try await f.count("entitlements") == 1)
        // That transaction cannot pay for another quote, nor another transaction for this one.
        let q2 = try await Self.quote(f, ann)
        #expect(
            await CatalogFixture.code {
                _ = try await f.store.buyArea(quoteID: q2.id, purchase: Self.consumable("t1"), account: ann, now: Date())
            } == "transaction_used")
        #expect(
            await CatalogFixture.code {
                _ = try await f.store.buyArea(quoteID: q.id, purchase: Self.consumable("t2"), account: ann, now: Date())
            } == "quote_used")
        // A region's transaction cannot pay for an area.
        _ = try await f.store.recordPurchase(CatalogFixture.purchase("colorado", id: "r1"), account: ann)
        #expect(
            await CatalogFixture.code {
                _ = try await f.store.buyArea(quoteID: q2.id, purchase: Self.consumable("r1"), account: ann, now: Date())
            } == "transaction_used")
        // Another account's quote does not exist for bob; ann's transaction is not bob's.
        #expect(
            await CatalogFixture.code {
                _ = try await f.store.buyArea(quoteID: q2.id, purchase: Self.consumable("t3"), account: bob, now: Date())
            } == "unknown_quote")
        #expect(
            await CatalogFixture.code {
                _ = try await f.store.buyArea(quoteID: q2.id, purchase: Self.consumable("t1"), account: bob, now: Date())
            } == "transaction_claimed")
        // A transaction for another product, an expired quote.
        #expect(
            await CatalogFixture.code {
                _ = try await f.store.buyArea(
                    quoteID: q2.id, purchase: Self.consumable("t4", product: "colorado"), account: ann, now: Date())
            } == "wrong_product")
        #expect(
            await CatalogFixture.code {
                _ = try await f.store.buyArea(
                    quoteID: q2.id, purchase: Self.consumable("t5"), account: ann, now: Date().addingTimeInterval(3600))
            } == "quote_expired")
        #expect(try await f.count("transactions") == 2, "only the area's and the region's")
        #expect(try await f.count("entitlements") == 2)

        // Ann sees her area (listed, owned, downloadable); bob and the anonymous store do not.
        let listed = try await f.store.listing(account: ann, deviceID: nil, available: nil, only: nil)
        #expect(listed.first { $0.product.id == bought.area.id }?.status == .purchased)
        #expect(try await f.store.listing(account: bob, deviceID: nil, available: nil, only: nil).allSatisfy { $0.product.kind != .area })
        #expect(try await f.store.listing(account: nil, deviceID: nil, available: nil, only: nil).allSatisfy { $0.product.owner == nil })
        #expect(try await f.store.products().allSatisfy { $0.owner == nil })
        #expect(try await f.store.downloadable(productID: bought.area.id, account: ann).bundlePath == q.bundlePath)
        #expect(await CatalogFixture.code { _ = try await f.store.downloadable(productID: bought.area.id, account: bob) } == "not_entitled")
        #expect(try await f.store.entitlements(account: ann).map(\.productId).contains(bought.area.id))
        // Installed on two devices, like a region.
        let phone = try await f.store.addDevice(account: ann, name: "phone"),
            tablet = try await f.store.addDevice(account: ann, name: "tablet")
        try await f.store.setInstalled(productID: bought.area.id, version: 1, deviceID: phone.id, account: ann)
        try await f.store.setInstalled(productID: bought.area.id, version: 1, deviceID: tablet.id, account: ann)
        #expect(
            try await f.store.listing(account: ann, deviceID: tablet.id, available: nil, only: bought.area.id).first?.status == .installed)
        // The store cannot sell a bought area, and a product file cannot overwrite one.
        #expect(
            await CatalogFixture.code {
                _ = try await f.store.recordPurchase(CatalogFixture.purchase(bought.area.id, id: "x"), account: ann)
            } == "unknown_product")
        #expect(
            await CatalogFixture.code {
                _ = try await f.publish(try f.files.productFile([CatalogFiles.entry(bought.area.id, bundle: "colorado.mbtiles")]))
            } == "invalid_product_file")

        // A refund revokes the area.
        #expect(
            try await f.store.apply(
                StoreEvent(notificationUUID: "n1", type: "REFUND", subtype: nil, originalTransactionId: "t1", transactionId: "t1"))
                == .revoked)
        #expect(await CatalogFixture.code { _ = try await f.store.downloadable(productID: bought.area.id, account: ann) } == "revoked")
        #expect(try await f.store.listing(account: ann, deviceID: phone.id, available: nil, only: bought.area.id).first?.status == .revoked)
    }

    @Test(arguments: Backend.allCases)
    func quotesAreBoundedPerAccountAndExpire(_ backend: Backend) async throws {
        let f = try await Self.fixture(backend)
        let ann = try await f.account()
        var quotes = [AreaQuoteRecord]()
        #expect(try await f.store.unboughtAreaQuoteBytes() == 0)
        for _ in 0..<3 { quotes.append(try await Self.quote(f, ann)) }
        #expect(try await f.store.unboughtAreaQuoteBytes() == 3 * 1234)
        _ = try await f.store.buyArea(quoteID: quotes[0].id, purchase: Self.consumable("t1"), account: ann, now: Date())
        #expect(try await f.store.unboughtAreaQuoteBytes() == 2 * 1234, "a bought quote's bundle is an area's")
        // Per account: ann's own, and none for an account without quotes.
        #expect(try await f.store.unboughtAreaQuoteBytes(accountID: ann.id) == 2 * 1234)
        let bob = try await f.account("bob@example.com")
        #expect(try await f.store.unboughtAreaQuoteBytes(accountID: bob.id) == 0)
        // Keeping 1 unbought quote drops the older unbought one, never the bought one.
        let q = AreaQuoteRecord(
            id: AreaQuoteRecord.newID(), accountId: ann.id, productId: "area", title: "x", bundlePath: "/nowhere/x.mbtiles",
            size: 1, sha256: "", tiles: 1, minZoom: 3, maxZoom: 3, requestedMaxZoom: 3, bounds: CatalogFiles.colorado,
            createdAt: Date().addingTimeInterval(5), expiresAt: Date().addingTimeInterval(-120))
        let dropped = try await f.store.saveAreaQuote(q, keepPerAccount: 2)
        #expect(dropped == [quotes[1].bundlePath])
        #expect(try await f.store.areaQuote(id: quotes[1].id, account: ann) == nil)
        #expect(try await f.store.areaQuote(id: quotes[0].id, account: ann)?.areaId == quotes[0].areaIDIfBought)
        // Expired and unbought: swept; bought ones stay whatever their expiry.
        #expect(try await f.store.removeExpiredAreaQuotes(before: Date()) == ["/nowhere/x.mbtiles"])
        #expect(try await f.store.removeExpiredAreaQuotes(before: Date().addingTimeInterval(7200)) == [quotes[2].bundlePath])
        #expect(try await f.store.unboughtAreaQuoteBytes() == 0)
        #expect(try await f.store.areaQuote(id: quotes[0].id, account: ann) != nil)
    }
}
