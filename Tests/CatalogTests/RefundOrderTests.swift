import Catalog
import Foundation
import Testing
import TrailMapAPI
import TrailMapTestSupport

/// Hardening, finding 3: refunds that arrive before their purchase, the transaction's
/// `revocationDate`, and REFUND / REFUND_REVERSED applied in `signedDate` order, on both backends.
@Suite struct RefundOrderTests {
    static func event(_ uuid: String, _ type: String, original: String, signed: TimeInterval, revoked: TimeInterval? = nil) -> StoreEvent {
        StoreEvent(
            notificationUUID: uuid, type: type, subtype: nil, originalTransactionId: original, transactionId: original,
            signedDate: Date(timeIntervalSince1970: signed), revocationDate: revoked.map(Date.init(timeIntervalSince1970:)))
    }

    // Hardening finding 3 (docs/notes/hardening.md).
    @Test(arguments: Backend.allCases)
    func aRefundBeforeItsPurchaseIsKeptAndAppliedWhenThePurchaseArrives(_ backend: Backend) async throws {
        let f = try await CatalogFixture(backend)
        try await f.publishSample()
        let a = try await f.account()
        #expect(try await f.store.apply(Self.event("n1", "REFUND", original: "7", signed: 1_000, revoked: 990)) == .pending)
        #expect(try await f.store.apply(Self.event("n1", "REFUND", original: "7", signed: 1_000, revoked: 990)) == .duplicate)
        // The purchase arrives afterwards (the app was offline): it must not grant a refunded region.
        _ = try await f.store.recordPurchase(CatalogFixture.purchase("colorado", id: "7"), account: a)
        #expect(try await f.store.entitlements(account: a).first?.status == .revoked)
        #expect(await CatalogFixture.code { _ = try await f.store.downloadable(productID: "colorado", account: a) } == "revoked")
        #expect(try await f.store.auditLog(limit: 100).map(\.action) == ["grant", "revoke"])
        #expect(try await f.store.auditLog(limit: 100).last?.reason.contains("n1") == true)
        // A pending REFUND does not touch another transaction.
        _ = try await f.store.recordPurchase(CatalogFixture.purchase("rocky", id: "8"), account: a)
        #expect(try await f.store.isEntitled(accountID: a.id, productID: "rocky"))
    }

    // Hardening finding 3 (docs/notes/hardening.md).
    @Test(arguments: Backend.allCases)
    func aTransactionWithARevocationDateGrantsNothing(_ backend: Backend) async throws {
        let f = try await CatalogFixture(backend)
        try await f.publishSample()
        let a = try await f.account()
        var p = CatalogFixture.purchase("colorado", id: "9")
        p.revocationDate = Date(timeIntervalSince1970: 1_000)
        #expect(await CatalogFixture.code { _ = try await f.store.recordPurchase(p, account: a) } == "revoked")
        #expect(try await f.store.entitlements(account: a).isEmpty)
        #expect(try await f.store.auditLog(limit: 100).isEmpty)
        #expect(try await f.count("transactions") == 0)
    }

    // Hardening finding 3 (docs/notes/hardening.md).
    @Test(arguments: Backend.allCases)
    func refundAndReversalFollowSignedDateNotArrivalAndReachInstalls(_ backend: Backend) async throws {
        let f = try await CatalogFixture(backend)
        try await f.publishSample()
        let a = try await f.account()
        let phone = try await f.store.addDevice(account: a, name: "phone")
        _ = try await f.store.recordPurchase(CatalogFixture.purchase("colorado", id: "1"), account: a)
        try await f.store.setInstalled(productID: "colorado", version: 1, deviceID: phone.id, account: a)
        func installed() async throws -> [ProductStatus] {
            try await f.store.listing(account: a, deviceID: phone.id, available: nil, only: "colorado").map(\.status)
        }
        // The store refunded (t=200) after reversing an earlier refund (t=100); they arrive newest first.
        #expect(try await f.store.apply(Self.event("late-refund", "REFUND", original: "1", signed: 200, revoked: 190)) == .revoked)
        #expect(try await installed() == [.revoked])
        #expect(try await f.store.apply(Self.event("old-reversal", "REFUND_REVERSED", original: "1", signed: 100)) == .superseded)
        #expect(try await f.store.isEntitled(accountID: a.id, productID: "colorado") == false)
        // A later reversal wins.
        #expect(try await f.store.apply(Self.event("reversal", "REFUND_REVERSED", original: "1", signed: 300)) == .restored)
        #expect(try await f.store.isEntitled(accountID: a.id, productID: "colorado"))
        #expect(try await installed() == [.installed])
        #expect(try await f.store.apply(Self.event("old-refund", "REVOKE", original: "1", signed: 250)) == .superseded)
        #expect(try await f.store.isEntitled(accountID: a.id, productID: "colorado"))
        #expect(
            try await f.store.apply(
                StoreEvent(
                    notificationUUID: "other", type: "DID_RENEW", subtype: nil,
                    originalTransactionId: "1", transactionId: "1")) == .ignored)
        #expect(try await f.store.auditLog(limit: 100).map(\.action) == ["grant", "revoke", "restore"])
    }

    // Hardening finding 3 (docs/notes/hardening.md).
    @Test(arguments: Backend.allCases)
    func theRevocationDateIsRecordedInTheReason(_ backend: Backend) async throws {
        let f = try await CatalogFixture(backend)
        try await f.publishSample()
        let a = try await f.account()
        _ = try await f.store.recordPurchase(CatalogFixture.purchase("colorado", id: "1"), account: a)
        _ = try await f.store.apply(Self.event("n1", "REFUND", original: "1", signed: 1_700_000_100, revoked: 1_700_000_000))
        let e = try #require(try await f.store.entitlements(account: a).first)
        #expect(e.reason?.contains("2023-11-14T22:13:20Z") == true, "\(e.reason ?? "nil")")
    }
}
