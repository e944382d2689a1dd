import Catalog
import Foundation
import Testing
import TrailMapTestSupport

/// Hardening, finding 3: refunds that arrive before their purchase, the transaction's
/// `revocationDate`, and REFUND / REFUND_REVERSED applied in `signedDate` order.
@Suite struct RefundOrderTests {
    static func event(_ uuid: String, _ type: String, original: String, signed: TimeInterval, revoked: TimeInterval? = nil) -> StoreEvent {
        StoreEvent(notificationUUID: uuid, type: type, subtype: nil, originalTransactionId: original, transactionId: original,
                   signedDate: Date(timeIntervalSince1970: signed), revocationDate: revoked.map(Date.init(timeIntervalSince1970:)))
    }

    @Test func finding3_aRefundBeforeItsPurchaseIsKeptAndAppliedWhenThePurchaseArrives() throws {
        let f = try CatalogFixture()
        try f.publishSample()
        let a = try f.account()
        #expect(try f.db.apply(Self.event("n1", "REFUND", original: "7", signed: 1_000, revoked: 990)) == .pending)
        // The purchase arrives afterwards (the app was offline): it must not grant a refunded region.
        _ = try f.db.recordPurchase(CatalogFixture.purchase("colorado", id: "7"), account: a)
        #expect(try f.db.entitlements(account: a).first?.status == .revoked)
        #expect(throws: CatalogError.revoked("colorado")) { try f.db.downloadable(productID: "colorado", account: a) }
        #expect(try f.db.auditLog().map(\.action) == ["grant", "revoke"])
        #expect(try f.db.auditLog().last?.reason.contains("n1") == true)
        // A pending REFUND does not touch another transaction.
        _ = try f.db.recordPurchase(CatalogFixture.purchase("rocky", id: "8"), account: a)
        #expect(try f.db.isEntitled(accountID: a.id, productID: "rocky"))
    }

    @Test func finding3_aTransactionWithARevocationDateGrantsNothing() throws {
        let f = try CatalogFixture()
        try f.publishSample()
        let a = try f.account()
        var p = CatalogFixture.purchase("colorado", id: "9")
        p.revocationDate = Date(timeIntervalSince1970: 1_000)
        #expect(throws: CatalogError.revoked("colorado")) { try f.db.recordPurchase(p, account: a) }
        #expect(try f.db.entitlements(account: a).isEmpty)
        #expect(try f.db.auditLog().isEmpty)
    }

    @Test func finding3_refundAndReversalFollowSignedDateNotArrival() throws {
        let f = try CatalogFixture()
        try f.publishSample()
        let a = try f.account()
        _ = try f.db.recordPurchase(CatalogFixture.purchase("colorado", id: "1"), account: a)
        // The store refunded (t=200) after reversing an earlier refund (t=100); they arrive newest first.
        #expect(try f.db.apply(Self.event("late-refund", "REFUND", original: "1", signed: 200, revoked: 190)) == .revoked)
        #expect(try f.db.apply(Self.event("old-reversal", "REFUND_REVERSED", original: "1", signed: 100)) == .superseded)
        #expect(try f.db.isEntitled(accountID: a.id, productID: "colorado") == false)
        // A later reversal wins.
        #expect(try f.db.apply(Self.event("reversal", "REFUND_REVERSED", original: "1", signed: 300)) == .restored)
        #expect(try f.db.isEntitled(accountID: a.id, productID: "colorado"))
        #expect(try f.db.apply(Self.event("old-refund", "REVOKE", original: "1", signed: 250)) == .superseded)
        #expect(try f.db.isEntitled(accountID: a.id, productID: "colorado"))
        #expect(try f.db.auditLog().map(\.action) == ["grant", "revoke", "restore"])
    }

    @Test func finding3_theRevocationDateIsRecordedInTheReason() throws {
        let f = try CatalogFixture()
        try f.publishSample()
        let a = try f.account()
        _ = try f.db.recordPurchase(CatalogFixture.purchase("colorado", id: "1"), account: a)
        _ = try f.db.apply(Self.event("n1", "REFUND", original: "1", signed: 1_700_000_100, revoked: 1_700_000_000))
        let e = try #require(try f.db.entitlements(account: a).first)
        #expect(e.reason?.contains("2023-11-14T22:13:20Z") == true, "\(e.reason ?? "nil")")
    }
}
