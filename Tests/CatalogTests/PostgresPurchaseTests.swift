import Catalog
import Foundation
import Testing
import TrailMapAPI
import TrailMapTestSupport

/// Publishing, listings, purchases (idempotent and race-free across servers), refunds in signed
/// order, and installs on a real PostgreSQL.
@Suite struct PostgresPurchaseTests {
    @Test func publishAndListingStatuses() async throws {
        let f = try await PostgresFixture()
        try await f.publishSample()
        #expect(try await f.catalog.products().map(\.id) == ["base", "rocky", "colorado"])
        #expect(try await f.catalog.categoryTree().map(\.path) == ["Base maps", "National Parks", "States"])
        #expect(try await f.catalog.categoryTree().first { $0.path == "States" }?.children.map(\.path) == ["States/Colorado"])
        let anonymous = try await f.catalog.listing(account: nil, deviceID: nil, available: ["colorado"], only: nil)
        #expect(anonymous.map(\.status) == [.free, .unavailable, .forSale])

        let a = try await f.account()
        let phone = try await f.catalog.addDevice(account: a, name: "phone")
        _ = try await f.catalog.recordPurchase(CatalogFixture.purchase("colorado", id: "1"), account: a)
        try await f.catalog.setInstalled(productID: "colorado", version: 1, deviceID: phone.id, account: a)
        var mine = try await f.catalog.listing(account: a, deviceID: phone.id, available: nil, only: nil)
        #expect(mine.map(\.status) == [.free, .forSale, .installed])

        // The same bundles again: unchanged; a new colorado bundle: a new version, an update.
        let file = try f.files.productFile([CatalogFixture.entry("colorado", bundle: "colorado.mbtiles")], name: "one.json")
        #expect(try await f.catalog.publish(try ProductFile.load(path: file), tilesDirectory: f.files.dir.path).map(\.change) == [.unchanged])
        try f.files.bundle("colorado", seed: 9)
        let again = try await f.catalog.publish(try ProductFile.load(path: file), tilesDirectory: f.files.dir.path)
        #expect(again.map(\.change) == [.newVersion] && again.map(\.version) == [2])
        mine = try await f.catalog.listing(account: a, deviceID: phone.id, available: nil, only: "colorado")
        #expect(mine.map(\.status) == [.updateAvailable] && mine.first?.installedVersion == 1)
        try await f.catalog.setUninstalled(productID: "colorado", deviceID: phone.id, account: a)
        #expect(try await f.catalog.listing(account: a, deviceID: phone.id, available: nil, only: "colorado").map(\.status) == [.purchased])
        #expect(await PostgresFixture.code {
            try await f.catalog.setInstalled(productID: "colorado", version: 3, deviceID: phone.id, account: a)
        } == "unknown_version")
    }

    @Test func theSamePurchaseTwiceIsOneEntitlement() async throws {
        let f = try await PostgresFixture()
        try await f.publishSample()
        let a = try await f.account(), b = try await f.account("bob@example.com")
        let first = try await f.catalog.recordPurchase(CatalogFixture.purchase("colorado", id: "1"), account: a)
        let second = try await f.catalog.recordPurchase(CatalogFixture.purchase("colorado", id: "1"), account: a)
        #expect(!first.alreadyOwned && second.alreadyOwned)
        #expect(try await f.catalog.entitlements(account: a).count == 1)
        #expect(try await f.catalog.purchase(transactionID: "1", account: a)?.productId == "colorado")
        #expect(try await f.catalog.downloadable(productID: "colorado", account: a).id == "colorado")
        #expect(await PostgresFixture.code { _ = try await f.catalog.recordPurchase(CatalogFixture.purchase("colorado", id: "1"), account: b) }
                == "transaction_claimed")
        #expect(await PostgresFixture.code {
            _ = try await f.catalog.recordPurchase(CatalogFixture.purchase("rocky", id: "2", token: b.appAccountToken), account: a)
        } == "account_token_mismatch")
        #expect(await PostgresFixture.code { _ = try await f.catalog.recordPurchase(CatalogFixture.purchase("nope", id: "3"), account: a) }
                == "unknown_product")
        #expect(await PostgresFixture.code { _ = try await f.catalog.downloadable(productID: "rocky", account: a) } == "not_entitled")
        // A second purchase of an owned product: recorded, no second entitlement.
        #expect(try await f.catalog.recordPurchase(CatalogFixture.purchase("colorado", id: "4"), account: a).alreadyOwned)
        #expect(try await f.catalog.entitlements(account: a).count == 1)
        #expect(try await f.catalog.auditLog().map(\.action) == ["grant", "purchase_recorded"])
    }

    @Test func nServersRecordingOneTransactionAtOnceGrantOneEntitlement() async throws {
        let f = try await PostgresFixture()
        try await f.publishSample()
        let a = try await f.account()
        var servers = [PostgresCatalog]()
        for _ in 0..<6 { servers.append(try await f.another()) }
        defer { servers.forEach { $0.close() } }
        let list = servers
        // Each server twice, all at once: one new entitlement, every other answer "already owned".
        let outcomes = try await withThrowingTaskGroup(of: Bool.self) { group in
            for i in 0..<12 {
                group.addTask { try await list[i % list.count].recordPurchase(CatalogFixture.purchase("colorado", id: "race"), account: a).alreadyOwned }
            }
            return try await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(outcomes.filter { !$0 }.count == 1, "\(outcomes)")
        #expect(try await f.catalog.entitlements(account: a).count == 1)
        #expect(try await f.catalog.auditLog().filter { $0.action == "grant" }.count == 1)
        // Different transactions of one product at once: still one entitlement.
        let others = try await withThrowingTaskGroup(of: Bool.self) { group in
            for i in 0..<6 {
                group.addTask { try await list[i].recordPurchase(CatalogFixture.purchase("rocky", id: "r\(i)"), account: a).alreadyOwned }
            }
            return try await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(others.filter { !$0 }.count == 1, "\(others)")
        #expect(try await f.catalog.entitlements(account: a).filter { $0.productId == "rocky" }.count == 1)
    }

    @Test func aRefundBeforeItsPurchaseIsAppliedWhenThePurchaseArrives() async throws {
        let f = try await PostgresFixture()
        try await f.publishSample()
        let a = try await f.account()
        #expect(try await f.catalog.apply(RefundOrderTests.event("n1", "REFUND", original: "7", signed: 1_000, revoked: 990)) == .pending)
        #expect(try await f.catalog.apply(RefundOrderTests.event("n1", "REFUND", original: "7", signed: 1_000, revoked: 990)) == .duplicate)
        _ = try await f.catalog.recordPurchase(CatalogFixture.purchase("colorado", id: "7"), account: a)
        #expect(try await f.catalog.entitlements(account: a).first?.status == .revoked)
        #expect(await PostgresFixture.code { _ = try await f.catalog.downloadable(productID: "colorado", account: a) } == "revoked")
        #expect(try await f.catalog.auditLog().map(\.action) == ["grant", "revoke"])
        #expect(try await f.catalog.auditLog().last?.reason.contains("n1") == true)
        _ = try await f.catalog.recordPurchase(CatalogFixture.purchase("rocky", id: "8"), account: a)
        #expect(try await f.catalog.isEntitled(accountID: a.id, productID: "rocky"))
    }

    @Test func refundAndReversalFollowSignedDateNotArrivalAndRevokeInstalls() async throws {
        let f = try await PostgresFixture()
        try await f.publishSample()
        let a = try await f.account()
        let phone = try await f.catalog.addDevice(account: a, name: "phone")
        _ = try await f.catalog.recordPurchase(CatalogFixture.purchase("colorado", id: "1"), account: a)
        try await f.catalog.setInstalled(productID: "colorado", version: 1, deviceID: phone.id, account: a)
        #expect(try await f.catalog.apply(RefundOrderTests.event("late-refund", "REFUND", original: "1", signed: 200, revoked: 1_700_000_000)) == .revoked)
        #expect(try await f.catalog.listing(account: a, deviceID: phone.id, available: nil, only: "colorado").map(\.status) == [.revoked])
        #expect(try await f.catalog.entitlements(account: a).first?.reason?.contains("2023-11-14T22:13:20Z") == true)
        #expect(try await f.catalog.apply(RefundOrderTests.event("old-reversal", "REFUND_REVERSED", original: "1", signed: 100)) == .superseded)
        #expect(try await !f.catalog.isEntitled(accountID: a.id, productID: "colorado"))
        #expect(try await f.catalog.apply(RefundOrderTests.event("reversal", "REFUND_REVERSED", original: "1", signed: 300)) == .restored)
        #expect(try await f.catalog.isEntitled(accountID: a.id, productID: "colorado"))
        #expect(try await f.catalog.listing(account: a, deviceID: phone.id, available: nil, only: "colorado").map(\.status) == [.installed])
        #expect(try await f.catalog.apply(RefundOrderTests.event("old-refund", "REVOKE", original: "1", signed: 250)) == .superseded)
        #expect(try await f.catalog.apply(StoreEvent(notificationUUID: "other", type: "DID_RENEW", subtype: nil,
                                                     originalTransactionId: "1", transactionId: "1")) == .ignored)
        #expect(try await f.catalog.auditLog().map(\.action) == ["grant", "revoke", "restore"])
    }

    @Test func aTransactionWithARevocationDateGrantsNothing() async throws {
        let f = try await PostgresFixture()
        try await f.publishSample()
        let a = try await f.account()
        var p = CatalogFixture.purchase("colorado", id: "9")
        p.revocationDate = Date(timeIntervalSince1970: 1_000)
        #expect(await PostgresFixture.code { _ = try await f.catalog.recordPurchase(p, account: a) } == "revoked")
        #expect(try await f.catalog.entitlements(account: a).isEmpty)
    }
}
