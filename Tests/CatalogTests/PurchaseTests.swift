import Catalog
import Foundation
import GRDB
import Testing
import TrailMapAPI
import TrailMapTestSupport

@Suite struct PurchaseTests {
    func count(_ f: CatalogFixture, _ table: String) throws -> Int {
        try DatabaseQueue(path: f.dir.file("catalog.sqlite")).read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM \(table)") ?? -1 }
    }

    @Test func aPurchaseGrantsOnceAndRepeatsAreFree() throws {
        let f = try CatalogFixture()
        try f.publishSample()
        let a = try f.account()
        #expect(try f.db.recordPurchase(CatalogFixture.purchase("colorado", id: "1"), account: a).alreadyOwned == false)
        #expect(try f.db.recordPurchase(CatalogFixture.purchase("colorado", id: "1"), account: a).alreadyOwned == true)
        // A second purchase of something owned: recorded, but no second entitlement.
        #expect(try f.db.recordPurchase(CatalogFixture.purchase("colorado", id: "2"), account: a).alreadyOwned == true)
        #expect(try count(f, "transactions") == 2)
        #expect(try count(f, "entitlements") == 1)
        #expect(try f.db.entitlements(account: a).map(\.productId) == ["colorado"])
    }

    @Test func claimsByAnotherAccountAreRefusedAndRecordNothing() throws {
        let f = try CatalogFixture()
        try f.publishSample()
        let ann = try f.account(), bob = try f.account("bob@example.com")
        _ = try f.db.recordPurchase(CatalogFixture.purchase("colorado", id: "1"), account: ann)
        #expect(throws: CatalogError.transactionClaimed) { try f.db.recordPurchase(CatalogFixture.purchase("colorado", id: "1"), account: bob) }
        #expect(throws: CatalogError.transactionClaimed) {
            try f.db.recordPurchase(CatalogFixture.purchase("colorado", id: "5", original: "1"), account: bob)
        }
        #expect(throws: CatalogError.accountTokenMismatch) {
            try f.db.recordPurchase(CatalogFixture.purchase("rocky", id: "7", token: ann.appAccountToken), account: bob)
        }
        #expect(throws: CatalogError.unknownProduct("utah")) { try f.db.recordPurchase(CatalogFixture.purchase("utah", id: "8"), account: bob) }
        #expect(try count(f, "transactions") == 1)
        #expect(try f.db.entitlements(account: bob).isEmpty)
    }

    @Test func sqlMetacharactersAreJustText() throws {
        let f = try CatalogFixture()
        try f.publishSample()
        let a = try f.account()
        let id = "1'; DELETE FROM entitlements; --"
        _ = try f.db.recordPurchase(CatalogFixture.purchase("colorado", id: id), account: a)
        #expect(try f.db.entitlements(account: a).first?.originalTransactionId == id)
        #expect(throws: CatalogError.unknownProduct("x' OR '1'='1")) {
            try f.db.recordPurchase(CatalogFixture.purchase("x' OR '1'='1", id: "9"), account: a)
        }
    }

    @Test func theSameTransactionPostedAHundredTimesAtOnceRecordsOnce() async throws {
        let f = try CatalogFixture()
        try f.publishSample()
        let a = try f.account()
        let db = f.db
        let granted = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<100 {
                group.addTask { (try? db.recordPurchase(CatalogFixture.purchase("colorado", id: "42"), account: a).alreadyOwned) == false }
            }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(granted == 1)
        #expect(try count(f, "transactions") == 1)
        #expect(try count(f, "entitlements") == 1)
    }

    @Test func refundRevokesReversalRestoresAndReplaysChangeNothing() throws {
        let f = try CatalogFixture()
        try f.publishSample()
        let a = try f.account()
        let phone = try f.db.addDevice(account: a, name: "phone")
        _ = try f.db.recordPurchase(CatalogFixture.purchase("colorado", id: "1"), account: a)
        try f.db.setInstalled(productID: "colorado", version: 1, deviceID: phone.id, account: a)
        let refund = StoreEvent(notificationUUID: "n1", type: "REFUND", subtype: nil, originalTransactionId: "1", transactionId: "1")
        #expect(try f.db.apply(refund) == .revoked)
        #expect(try f.db.apply(refund) == .duplicate)
        #expect(try f.db.entitlements(account: a).first?.status == .revoked)
        #expect(try f.db.listing(account: a, deviceID: phone.id, available: nil, only: "colorado").first?.status == .revoked)
        #expect(throws: CatalogError.revoked("colorado")) { try f.db.downloadable(productID: "colorado", account: a) }
        #expect(try f.db.isEntitled(accountID: a.id, productID: "colorado") == false)

        let reversed = StoreEvent(notificationUUID: "n2", type: "REFUND_REVERSED", subtype: nil, originalTransactionId: "1", transactionId: "1")
        #expect(try f.db.apply(reversed) == .restored)
        #expect(try f.db.listing(account: a, deviceID: phone.id, available: nil, only: "colorado").first?.status == .installed)
        #expect(try f.db.apply(StoreEvent(notificationUUID: "n3", type: "CONSUMPTION_REQUEST", subtype: nil,
                                          originalTransactionId: "1", transactionId: "1")) == .ignored)
        let log = try f.db.auditLog()
        #expect(log.map(\.action) == ["grant", "revoke", "restore"])
        #expect(log[1].reason.contains("REFUND") && log[1].reason.contains("n1"))
    }

    @Test func theAuditLogIsAppendOnly() throws {
        let f = try CatalogFixture()
        try f.publishSample()
        _ = try f.db.recordPurchase(CatalogFixture.purchase("colorado", id: "1"), account: try f.account())
        let raw = try DatabaseQueue(path: f.dir.file("catalog.sqlite"))
        #expect(throws: DatabaseError.self) { try raw.write { try $0.execute(sql: "UPDATE audit_log SET reason = 'x'") } }
        #expect(throws: DatabaseError.self) { try raw.write { try $0.execute(sql: "DELETE FROM audit_log") } }
        #expect(try f.db.auditLog().count == 1)
    }

    @Test func statusesFollowTheCallersState() throws {
        let f = try CatalogFixture()
        try f.publishSample()
        let a = try f.account()
        let phone = try f.db.addDevice(account: a, name: "phone")
        func status(_ id: String, account: Account? = nil, available: Set<String>? = nil) throws -> ProductStatus? {
            try f.db.listing(account: account, deviceID: account == nil ? nil : phone.id, available: available, only: id).first?.status
        }
        #expect(try status("colorado") == .forSale)
        #expect(try status("base") == .free)
        #expect(try status("rocky", available: ["colorado"]) == .unavailable)
        _ = try f.db.recordPurchase(CatalogFixture.purchase("colorado", id: "1"), account: a)
        #expect(try status("colorado", account: a) == .purchased)
        try f.db.setInstalled(productID: "colorado", version: 1, deviceID: phone.id, account: a)
        #expect(try status("colorado", account: a) == .installed)
        try f.db.setUninstalled(productID: "colorado", deviceID: phone.id, account: a)
        #expect(try status("colorado", account: a) == .purchased)
        #expect(throws: CatalogError.notEntitled("rocky")) {
            try f.db.setInstalled(productID: "rocky", version: 1, deviceID: phone.id, account: a)
        }
    }
}
