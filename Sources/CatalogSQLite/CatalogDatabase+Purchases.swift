import Catalog
import Foundation
import TrailMapAPI
import GRDB

extension CatalogDatabase {
    /// Records a verified purchase for `account`: the transaction by its id (idempotent), the
    /// entitlement by its original transaction id. Buying a product already owned records the
    /// transaction but no second entitlement. A transaction bound to another account, or made
    /// with another account's appAccountToken, is refused and nothing is written.
    public func recordPurchase(_ p: StorePurchase, account: Account) throws(CatalogError) -> PurchaseOutcome {
        if let token = p.appAccountToken, token.lowercased() != account.appAccountToken.lowercased() {
            throw .accountTokenMismatch
        }
        // The store says this transaction was refunded or revoked: it grants nothing.
        if p.revocationDate != nil { throw .revoked(p.productId) }
        return try write { db in
            let kind = try Row.fetchOne(
                try db.cachedStatement(sql: "SELECT kind, owner FROM products WHERE id = ?"), arguments: [p.productId])
            guard let kind, kind["owner"] as String? == nil else { throw CatalogError.unknownProduct(p.productId) }
            if kind["kind"] == ProductKind.areaProduct.rawValue { throw CatalogError.areaProduct(p.productId) }
            let outcome = { (owned: Bool) in
                PurchaseOutcome(
                    productId: p.productId, transactionId: p.transactionId,
                    originalTransactionId: p.originalTransactionId, alreadyOwned: owned)
            }
            if let owner = try String.fetchOne(
                try db.cachedStatement(sql: "SELECT account_id FROM transactions WHERE transaction_id = ?"), arguments: [p.transactionId])
            {
                guard owner == account.id else { throw CatalogError.transactionClaimed }
                return outcome(true)
            }
            if let owner = try String.fetchOne(
                db, sql: "SELECT account_id FROM entitlements WHERE original_transaction_id = ?",
                arguments: [p.originalTransactionId]), owner != account.id
            {
                throw CatalogError.transactionClaimed
            }
            let now = Date().timeIntervalSince1970
            try db.execute(
                sql: """
                    INSERT INTO transactions(transaction_id, original_transaction_id, account_id, product_id, purchase_date,
                    environment, recorded_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    p.transactionId, p.originalTransactionId, account.id, p.productId,
                    p.purchaseDate.timeIntervalSince1970, p.environment, now
                ])
            let active = try String.fetchOne(
                try db.cachedStatement(
                    sql: """
                        SELECT original_transaction_id FROM entitlements WHERE account_id = ? AND product_id = ? AND status = 'active'
                        """), arguments: [account.id, p.productId])
            let existing =
                try Bool.fetchOne(
                    db, sql: "SELECT 1 FROM entitlements WHERE original_transaction_id = ?",
                    arguments: [p.originalTransactionId]) == true
            if active != nil || existing {
                try Self.audit(
                    db, account: account.id, product: p.productId, originalTransaction: p.originalTransactionId,
                    action: .purchaseRecorded, reason: "transaction \(p.transactionId): already owned, no new entitlement")
                return outcome(true)
            }
            try db.execute(
                sql: """
                    INSERT INTO entitlements(original_transaction_id, account_id, product_id, status, reason, granted_at, updated_at)
                    VALUES (?, ?, ?, 'active', NULL, ?, ?)
                    """, arguments: [p.originalTransactionId, account.id, p.productId, now, now])
            try Self.audit(
                db, account: account.id, product: p.productId, originalTransaction: p.originalTransactionId,
                action: .grant, reason: "purchase, transaction \(p.transactionId) (\(p.environment))")
            // A REFUND or REVOKE that arrived before the purchase takes effect now.
            if let reason = RevocationRules.pendingRevocation(
                latest: try Self.latestRevocationEvent(db, originalTransaction: p.originalTransactionId))
            {
                try Self.setRevoked(
                    db, true, account: account.id, product: p.productId, originalTransaction: p.originalTransactionId,
                    reason: reason)
            }
            return outcome(false)
        }
    }

    /// Every entitlement of an account (active and revoked), newest first.
    public func entitlements(account: Account) throws(CatalogError) -> [Catalog.Entitlement] {
        try read { db in
            try Row.fetchAll(
                try db.cachedStatement(
                    sql: """
                        SELECT product_id, original_transaction_id, status, reason, granted_at FROM entitlements
                        WHERE account_id = ? ORDER BY granted_at DESC
                        """), arguments: [account.id]
            ).map { r in
                Catalog.Entitlement(
                    productId: r["product_id"], originalTransactionId: r["original_transaction_id"],
                    status: Catalog.Entitlement.Status(rawValue: r["status"]) ?? .revoked, reason: r["reason"],
                    grantedAt: Date(timeIntervalSince1970: r["granted_at"]))
            }
        }
    }

    /// The product if the account may download it (free, or an active entitlement).
    public func downloadable(productID: String, account: Account) throws(CatalogError) -> Product {
        guard let product = try product(id: productID) else { throw .unknownProduct(productID) }
        if product.kind == .areaProduct { throw .areaProduct(productID) }
        if product.free { return product }
        let statuses = try read { db in
            try String.fetchAll(
                db, sql: "SELECT status FROM entitlements WHERE account_id = ? AND product_id = ?",
                arguments: [account.id, productID]
            ).map { raw throws(CatalogError) in try Catalog.Entitlement.Status(stored: raw) }
        }
        if statuses.contains(.active) { return product }
        throw statuses.isEmpty ? .notEntitled(productID) : .revoked(productID)
    }

    /// Whether the account holds an active entitlement to the product.
    public func isEntitled(accountID: String, productID: String) throws(CatalogError) -> Bool {
        try read { db in
            try Bool.fetchOne(
                db, sql: "SELECT 1 FROM entitlements WHERE account_id = ? AND product_id = ? AND status = 'active'",
                arguments: [accountID, productID]) == true
        }
    }

    /// Marks a product installed on a device (free or entitled products only).
    public func setInstalled(productID: String, version: Int, deviceID: String, account: Account) throws(CatalogError) {
        let product = try downloadable(productID: productID, account: account)
        guard version >= 1, version <= product.version else {
            throw .unknownVersion(productID: productID, published: product.version)
        }
        try write { db in
            try checkDevice(db, id: deviceID, account: account)
            try db.execute(
                sql: """
                    INSERT INTO installs(device_id, product_id, version, status, updated_at) VALUES (?, ?, ?, 'installed', ?)
                    ON CONFLICT(device_id, product_id) DO UPDATE SET version = excluded.version, status = 'installed',
                        updated_at = excluded.updated_at
                    """, arguments: [deviceID, productID, version, Date().timeIntervalSince1970])
        }
    }

    /// Marks a product uninstalled from a device; the entitlement stays.
    public func setUninstalled(productID: String, deviceID: String, account: Account) throws(CatalogError) {
        try write { db in
            try checkDevice(db, id: deviceID, account: account)
            try db.execute(sql: "DELETE FROM installs WHERE device_id = ? AND product_id = ?", arguments: [deviceID, productID])
        }
    }

    /// The products installed on any of the account's devices, sorted, each once.
    public func installedProducts(account: Account) throws(CatalogError) -> [String] {
        try read { db in
            try String.fetchAll(
                db,
                sql: """
                    SELECT DISTINCT installs.product_id FROM installs JOIN devices ON devices.id = installs.device_id
                    WHERE devices.account_id = ? AND installs.status = 'installed' ORDER BY installs.product_id
                    """, arguments: [account.id])
        }
    }

    /// The audit log, oldest first.
    public func auditLog(limit: Int = 1000) throws(CatalogError) -> [AuditEntry] {
        try read { db in
            try Row.fetchAll(try db.cachedStatement(sql: "SELECT * FROM audit_log ORDER BY id LIMIT ?"), arguments: [limit]).map { r in
                AuditEntry(
                    at: Date(timeIntervalSince1970: r["at"]), accountId: r["account_id"], productId: r["product_id"],
                    originalTransactionId: r["original_transaction_id"], action: r["action"], reason: r["reason"])
            }
        }
    }
}

extension CatalogDatabase {
    /// A recorded transaction of the account, as the store described it (for the sandbox store).
    public func purchase(transactionID: String, account: Account) throws(CatalogError) -> StorePurchase? {
        try read { db in
            try Row.fetchOne(
                try db.cachedStatement(
                    sql: """
                        SELECT * FROM transactions WHERE transaction_id = ? AND account_id = ?
                        """), arguments: [transactionID, account.id]
            ).map { r in
                StorePurchase(
                    transactionId: r["transaction_id"], originalTransactionId: r["original_transaction_id"],
                    productId: r["product_id"], appAccountToken: account.appAccountToken,
                    purchaseDate: Date(timeIntervalSince1970: r["purchase_date"]), environment: r["environment"])
            }
        }
    }
}
