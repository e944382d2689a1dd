import Catalog
import Foundation
import Testing
import TrailMapAPI
import TrailMapTestSupport

/// Purchases, entitlements, refunds, installs and the audit log, on both backends.
@Suite struct PurchaseTests {
    @Test(arguments: Backend.allCases)
    func aPurchaseGrantsOnceAndRepeatsAreFree(_ backend: Backend) async throws {
        let f = try await CatalogFixture(backend)
        try await f.publishSample()
        let a = try await f.account()
        #expect(try await f.store.recordPurchase(CatalogFixture.purchase("colorado", id: "1"), account: a).alreadyOwned == false)
        #expect(try await f.store.recordPurchase(CatalogFixture.purchase("colorado", id: "1"), account: a).alreadyOwned == true)
        // A second purchase of something owned: recorded, but no second entitlement.
        #expect(try await f.store.recordPurchase(CatalogFixture.purchase("colorado", id: "2"), account: a).alreadyOwned == true)
        #expect(try await f.count("transactions") == 2)
        #expect(try await f.count("entitlements") == 1)
        #expect(try await f.store.entitlements(account: a).map(\.productId) == ["colorado"])
        #expect(try await f.store.purchase(transactionID: "2", account: a)?.productId == "colorado")
        #expect(try await f.store.downloadable(productID: "colorado", account: a).id == "colorado")
        #expect(try await f.store.downloadable(productID: "base", account: a).id == "base", "free")
        #expect(await CatalogFixture.code { _ = try await f.store.downloadable(productID: "rocky", account: a) } == "not_entitled")
        #expect(try await f.store.auditLog(limit: 100).map(\.action) == ["grant", "purchase_recorded"])
    }

    @Test(arguments: Backend.allCases)
    func claimsByAnotherAccountAreRefusedAndRecordNothing(_ backend: Backend) async throws {
        let f = try await CatalogFixture(backend)
        try await f.publishSample()
        let ann = try await f.account(), bob = try await f.account("bob@example.com")
        _ = try await f.store.recordPurchase(CatalogFixture.purchase("colorado", id: "1"), account: ann)
        #expect(
            await CatalogFixture.code { _ = try await f.store.recordPurchase(CatalogFixture.purchase("colorado", id: "1"), account: bob) }
                == "transaction_claimed")
        #expect(
            await CatalogFixture.code {
                _ = try await f.store.recordPurchase(CatalogFixture.purchase("colorado", id: "5", original: "1"), account: bob)
            } == "transaction_claimed")
        #expect(
            await CatalogFixture.code {
                _ = try await f.store.recordPurchase(CatalogFixture.purchase("rocky", id: "7", token: ann.appAccountToken), account: bob)
            } == "account_token_mismatch")
        #expect(
            await CatalogFixture.code { _ = try await f.store.recordPurchase(CatalogFixture.purchase("utah", id: "8"), account: bob) }
                == "unknown_product")
        #expect(try await f.count("transactions") == 1)
        #expect(try await f.store.entitlements(account: bob).isEmpty)
        #expect(try await f.store.purchase(transactionID: "1", account: bob) == nil, "Ann's transaction")
    }

    @Test(arguments: Backend.allCases)
    func sqlMetacharactersAreJustText(_ backend: Backend) async throws {
        let f = try await CatalogFixture(backend)
        try await f.publishSample()
        let a = try await f.account()
        let id = "1'; DELETE FROM entitlements; --"
        _ = try await f.store.recordPurchase(CatalogFixture.purchase("colorado", id: id), account: a)
        #expect(try await f.store.entitlements(account: a).first?.originalTransactionId == id)
        #expect(
            await CatalogFixture.code { _ = try await f.store.recordPurchase(CatalogFixture.purchase("x' OR '1'='1", id: "9"), account: a) }
                == "unknown_product")
        #expect(try await f.count("entitlements") == 1)
    }

    @Test(arguments: Backend.allCases)
    func theSameTransactionPostedAHundredTimesAtOnceRecordsOnce(_ backend: Backend) async throws {
        let f = try await CatalogFixture(backend)
        try await f.publishSample()
        let a = try await f.account()
        let store = f.store
        let outcomes = await withTaskGroup(of: String.self) { group in
            for _ in 0..<100 {
                group.addTask {
                    do {
                        return try await store.recordPurchase(CatalogFixture.purchase("colorado", id: "42"), account: a).alreadyOwned
                            ? "owned" : "granted"
                    } catch {
                        return (error as? CatalogError)?.code ?? "\(error)"
                    }
                }
            }
            return await group.reduce(into: [String: Int]()) { $0[$1, default: 0] += 1 }
        }
        #expect(outcomes == ["granted": 1, "owned": 99], "\(outcomes)")
        #expect(try await f.count("transactions") == 1)
        #expect(try await f.count("entitlements") == 1)
        #expect(try await f.store.auditLog(limit: 1000).filter { $0.action == "grant" }.count == 1)
    }

    @Test(arguments: Backend.allCases)
    func refundRevokesReversalRestoresAndReplaysChangeNothing(_ backend: Backend) async throws {
        let f = try await CatalogFixture(backend)
        try await f.publishSample()
        let a = try await f.account()
        let phone = try await f.store.addDevice(account: a, name: "phone")
        _ = try await f.store.recordPurchase(CatalogFixture.purchase("colorado", id: "1"), account: a)
        try await f.store.setInstalled(productID: "colorado", version: 1, deviceID: phone.id, account: a)
        let refund = StoreEvent(notificationUUID: "n1", type: "REFUND", subtype: nil, originalTransactionId: "1", transactionId: "1")
        #expect(try await f.store.apply(refund) == .revoked)
        #expect(try await f.store.apply(refund) == .duplicate)
        #expect(try await f.store.entitlements(account: a).first?.status == .revoked)
        #expect(try await f.store.listing(account: a, deviceID: phone.id, available: nil, only: "colorado").first?.status == .revoked)
        #expect(await CatalogFixture.code { _ = try await f.store.downloadable(productID: "colorado", account: a) } == "revoked")
        #expect(try await f.store.isEntitled(accountID: a.id, productID: "colorado") == false)

        let reversed = StoreEvent(
            notificationUUID: "n2", type: "REFUND_REVERSED", subtype: nil, originalTransactionId: "1", transactionId: "1")
        #expect(try await f.store.apply(reversed) == .restored)
        #expect(try await f.store.listing(account: a, deviceID: phone.id, available: nil, only: "colorado").first?.status == .installed)
        #expect(
            try await f.store.apply(
                StoreEvent(
                    notificationUUID: "n3", type: "CONSUMPTION_REQUEST", subtype: nil,
                    originalTransactionId: "1", transactionId: "1")) == .ignored)
        let log = try await f.store.auditLog(limit: 100)
        #expect(log.map(\.action) == ["grant", "revoke", "restore"])
        #expect(log[1].reason.contains("REFUND") && log[1].reason.contains("n1"))
        #expect(log.allSatisfy { $0.accountId == a.id && $0.productId == "colorado" && $0.originalTransactionId == "1" })
    }

    @Test(arguments: Backend.allCases)
    func theAuditLogIsAppendOnly(_ backend: Backend) async throws {
        let f = try await CatalogFixture(backend)
        try await f.publishSample()
        _ = try await f.store.recordPurchase(CatalogFixture.purchase("colorado", id: "1"), account: try await f.account())
        // Past the catalog, on the database itself: changing or removing a line is refused.
        for statement in ["UPDATE audit_log SET reason = 'x'", "DELETE FROM audit_log"] {
            await #expect {
                try await f.execute(statement)
            } throws: { "\($0)".contains("audit_log is append-only") }
        }
        #expect(try await f.rows("SELECT reason FROM audit_log").map { $0.hasPrefix("purchase, transaction 1") } == [true])
        // Appending is allowed.
        try await f.execute("INSERT INTO audit_log(at, action, reason) VALUES (0, 'note', 'appended')")
        #expect(try await f.store.auditLog(limit: 100).map(\.action) == ["grant", "note"])
    }

    @Test(arguments: Backend.allCases)
    func statusesFollowTheCallersState(_ backend: Backend) async throws {
        let f = try await CatalogFixture(backend)
        try await f.publishSample()
        let a = try await f.account()
        let phone = try await f.store.addDevice(account: a, name: "phone")
        func status(_ id: String, account: Account? = nil, available: Set<String>? = nil) async throws -> ProductStatus? {
            try await f.store.listing(account: account, deviceID: account == nil ? nil : phone.id, available: available, only: id).first?
                .status
        }
        #expect(try await status("colorado") == .forSale)
        #expect(try await status("base") == .free)
        #expect(try await status("rocky", available: ["colorado"]) == .unavailable)
        #expect(
            try await f.store.listing(account: nil, deviceID: nil, available: ["colorado"], only: nil).map(\.status)
                == [.free, .unavailable, .forSale])
        _ = try await f.store.recordPurchase(CatalogFixture.purchase("colorado", id: "1"), account: a)
        #expect(try await status("colorado", account: a) == .purchased)
        #expect(try await status("colorado") == .forSale, "anonymous")
        try await f.store.setInstalled(productID: "colorado", version: 1, deviceID: phone.id, account: a)
        #expect(try await status("colorado", account: a) == .installed)
        #expect(
            try await f.store.listing(account: a, deviceID: phone.id, available: nil, only: nil).map(\.status)
                == [.free, .forSale, .installed])
        try await f.store.setUninstalled(productID: "colorado", deviceID: phone.id, account: a)
        #expect(try await status("colorado", account: a) == .purchased)
        #expect(
            await CatalogFixture.code { try await f.store.setInstalled(productID: "rocky", version: 1, deviceID: phone.id, account: a) }
                == "not_entitled")
        #expect(
            await CatalogFixture.code { try await f.store.setInstalled(productID: "colorado", version: 2, deviceID: phone.id, account: a) }
                == "unknown_version")
        #expect(
            await CatalogFixture.code { try await f.store.setInstalled(productID: "utah", version: 1, deviceID: phone.id, account: a) }
                == "unknown_product")
    }
}

/// Statuses are read as enums: a value the schema does not allow (a damaged or hand-edited
/// database) is an error of the database, never a product shown as for sale or downloadable.
@Suite struct StoredStatusTests {
    /// The message of the `CatalogError.database` that `body` throws; nil if it throws nothing or another error.
    static func message(_ body: () async throws -> Void) async -> String? {
        do { try await body() } catch let CatalogError.database(message) { return message } catch { return "another error: \(error)" }
        return nil
    }

    @Test(arguments: Backend.allCases)
    func anUnknownEntitlementStatusIsADatabaseError(_ backend: Backend) async throws {
        let f = try await CatalogFixture(backend)
        try await f.publishSample()
        let a = try await f.account()
        _ = try await f.store.recordPurchase(CatalogFixture.purchase("colorado", id: "1"), account: a)
        #expect(try await f.store.listing(account: a, deviceID: nil, available: nil, only: "colorado").first?.status == .purchased)
        switch backend {
        case .sqlite:
            try await f.execute("PRAGMA ignore_check_constraints = ON; UPDATE entitlements SET status = 'refunded'")
        case .postgres:
            try await f.execute(
                "ALTER TABLE entitlements DROP CONSTRAINT entitlements_status_check; UPDATE entitlements SET status = 'refunded'")
        }
        #expect(try await f.rows("SELECT status FROM entitlements") == ["refunded"])
        let listing = await Self.message { _ = try await f.store.listing(account: a, deviceID: nil, available: nil, only: nil) }
        let download = await Self.message { _ = try await f.store.downloadable(productID: "colorado", account: a) }
        #expect(listing?.contains("refunded") == true, "\(listing ?? "listed as if it were a status")")
        #expect(download?.contains("refunded") == true, "\(download ?? "downloadable as if it were a status")")
    }
}

/// The notification types that change an entitlement are read as `RevocationRules.Kind`: a type
/// the catalog does not act on (another store notification, a different spelling) changes
/// nothing, as before the enum.
@Suite struct RevocationKindTests {
    static func event(_ type: String, uuid: String = "n1") -> StoreEvent {
        StoreEvent(
            notificationUUID: uuid, type: type, subtype: nil, originalTransactionId: "t1", transactionId: nil,
            signedDate: Date(timeIntervalSince1970: 1_000), revocationDate: nil)
    }

    @Test func eachKindRevokesOrRestores() {
        for kind in RevocationRules.Kind.allCases {
            let e = Self.event(kind.rawValue)
            let status: Catalog.Entitlement.Status = kind.revokes ? .active : .revoked
            #expect(RevocationRules.decide(e, entitlementStatus: status, latest: e) == .set(revoke: kind.revokes))
        }
        #expect(RevocationRules.Kind.allCases.filter { !$0.revokes } == [.refundReversed])
    }

    @Test(arguments: ["CONSUMPTION_REQUEST", "refund", "REFUND ", ""])
    func anUnknownTypeIsIgnored(_ type: String) {
        let e = Self.event(type)
        #expect(RevocationRules.Kind(rawValue: type) == nil)
        #expect(RevocationRules.decide(e, entitlementStatus: .active, latest: e) == .outcome(.ignored))
        #expect(RevocationRules.decide(e, entitlementStatus: .revoked, latest: e) == .outcome(.ignored))
    }

    @Test func onlyARefundReversedLeavesNoPendingRevocation() {
        #expect(RevocationRules.pendingRevocation(latest: Self.event("REFUND_REVERSED")) == nil)
        #expect(RevocationRules.pendingRevocation(latest: Self.event("REFUND"))?.hasPrefix("REFUND notification n1") == true)
        #expect(RevocationRules.pendingRevocation(latest: Self.event("REVOKE")) != nil)
        #expect(RevocationRules.pendingRevocation(latest: nil) == nil)
    }
}

/// Audit lines are written through `AuditAction` and read back as their stored text: the strings
/// in existing logs stay the ones written, and a line no action names (an appended note) still
/// reads as it was (`PurchaseTests.theAuditLogIsAppendOnly`).
@Suite struct AuditActionTests {
    @Test func actionsKeepTheStringsExistingLogsHold() {
        #expect(AuditAction.allCases.map(\.rawValue) == ["grant", "purchase_recorded", "revoke", "restore", "revoke_tile_token_keys"])
        #expect(AuditAction(rawValue: "note") == nil)
    }
}
