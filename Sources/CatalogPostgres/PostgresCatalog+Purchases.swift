import Catalog
import Foundation
import TrailMapAPI
import Logging
import PostgresNIO

/// Purchases, entitlements, installs and the audit log, as `CatalogDatabase` does them.
extension PostgresCatalog {
    /// Records a verified purchase (see `CatalogDatabase.recordPurchase`). Race-free across
    /// servers: the transaction holds advisory locks on the account and on the original
    /// transaction, so N servers recording the same purchase at once record one transaction and
    /// one entitlement (the others answer `alreadyOwned`), and a refund notification handled at
    /// the same moment is ordered before or after it, never between.
    public func recordPurchase(_ p: StorePurchase, account: Account) async throws(CatalogError) -> PurchaseOutcome {
        if let token = p.appAccountToken, token.lowercased() != account.appAccountToken.lowercased() {
            throw .accountTokenMismatch
        }
        if p.revocationDate != nil { throw .revoked(p.productId) }
        let logger = logger
        return try await transaction { conn in
            let outcome = { (owned: Bool) in
                PurchaseOutcome(
                    productId: p.productId, transactionId: p.transactionId,
                    originalTransactionId: p.originalTransactionId, alreadyOwned: owned)
            }
            try await Self.lock(conn, "purchase-account:" + account.id, logger)
            try await Self.lock(conn, "original-transaction:" + p.originalTransactionId, logger)
            guard let kind = try await conn.rows("SELECT kind, owner FROM products WHERE id = \(p.productId)", logger).first,
                try kind.get("owner", as: String?.self) == nil
            else {
                throw CatalogError.unknownProduct(p.productId)
            }
            if try kind.get("kind", as: String.self) == ProductKind.areaProduct.rawValue { throw CatalogError.areaProduct(p.productId) }
            if let owner = try await conn.rows("SELECT account_id FROM transactions WHERE transaction_id = \(p.transactionId)", logger)
                .first
            {
                guard try owner.get("account_id", as: String.self) == account.id else { throw CatalogError.transactionClaimed }
                return outcome(true)
            }
            if let owner = try await conn.rows(
                """
                SELECT account_id FROM entitlements WHERE original_transaction_id = \(p.originalTransactionId)
                """, logger
            ).first, try owner.get("account_id", as: String.self) != account.id {
                throw CatalogError.transactionClaimed
            }
            let now = Date().timeIntervalSince1970
            // The advisory locks make this the only writer of the transaction; ON CONFLICT is the
            // last line of defence (a duplicate then claims nothing).
            let inserted = try await conn.rows(
                """
                INSERT INTO transactions(transaction_id, original_transaction_id, account_id, product_id, purchase_date, environment,
                recorded_at)
                VALUES (\(p.transactionId), \(p.originalTransactionId), \(account.id), \(p.productId),
                        \(p.purchaseDate.timeIntervalSince1970), \(p.environment), \(now))
                ON CONFLICT (transaction_id) DO NOTHING RETURNING 1
                """, logger)
            guard !inserted.isEmpty else { return outcome(true) }
            let active = try await conn.rows(
                """
                SELECT 1 FROM entitlements WHERE account_id = \(account.id) AND product_id = \(p.productId) AND status = 'active'
                """, logger)
            let existing = try await conn.rows(
                "SELECT 1 FROM entitlements WHERE original_transaction_id = \(p.originalTransactionId)", logger)
            if !active.isEmpty || !existing.isEmpty {
                try await Self.audit(
                    conn, account: account.id, product: p.productId, originalTransaction: p.originalTransactionId,
                    action: .purchaseRecorded, reason: "transaction \(p.transactionId): already owned, no new entitlement", logger)
                return outcome(true)
            }
            try await conn.run(
                """
                INSERT INTO entitlements(original_transaction_id, account_id, product_id, status, reason, granted_at, updated_at)
                VALUES (\(p.originalTransactionId), \(account.id), \(p.productId), 'active', NULL, \(now), \(now))
                """, logger)
            try await Self.audit(
                conn, account: account.id, product: p.productId, originalTransaction: p.originalTransactionId,
                action: .grant, reason: "purchase, transaction \(p.transactionId) (\(p.environment))", logger)
            // A REFUND or REVOKE that arrived before the purchase takes effect now.
            if let reason = RevocationRules.pendingRevocation(
                latest: try await Self.latestRevocationEvent(conn, originalTransaction: p.originalTransactionId, logger))
            {
                try await Self.setRevoked(
                    conn, true, account: account.id, product: p.productId,
                    originalTransaction: p.originalTransactionId, reason: reason, logger)
            }
            return outcome(false)
        }
    }

    /// A recorded transaction of the account, as the store described it (for the sandbox store).
    public func purchase(transactionID: String, account: Account) async throws(CatalogError) -> StorePurchase? {
        let logger = logger
        return try await withConnection { conn in
            try await conn.rows(
                """
                SELECT * FROM transactions WHERE transaction_id = \(transactionID) AND account_id = \(account.id)
                """, logger
            ).first.map { r in
                StorePurchase(
                    transactionId: try r.get("transaction_id"), originalTransactionId: try r.get("original_transaction_id"),
                    productId: try r.get("product_id"), appAccountToken: account.appAccountToken,
                    purchaseDate: Date(timeIntervalSince1970: try r.get("purchase_date")), environment: try r.get("environment"))
            }
        }
    }

    /// Every entitlement of an account (active and revoked), newest first.
    public func entitlements(account: Account) async throws(CatalogError) -> [Catalog.Entitlement] {
        let logger = logger
        return try await withConnection { conn in
            try await conn.rows(
                """
                SELECT product_id, original_transaction_id, status, reason, granted_at FROM entitlements
                WHERE account_id = \(account.id) ORDER BY granted_at DESC
                """, logger
            ).map { r in
                Entitlement(
                    productId: try r.get("product_id"), originalTransactionId: try r.get("original_transaction_id"),
                    status: Entitlement.Status(rawValue: try r.get("status")) ?? .revoked, reason: try r.get("reason"),
                    grantedAt: Date(timeIntervalSince1970: try r.get("granted_at")))
            }
        }
    }

    /// The product if the account may download it (free, or an active entitlement).
    public func downloadable(productID: String, account: Account) async throws(CatalogError) -> Product {
        guard let product = try await product(id: productID) else { throw .unknownProduct(productID) }
        if product.kind == .areaProduct { throw .areaProduct(productID) }
        if product.free { return product }
        let logger = logger
        let statuses = try await withConnection { conn in
            try await conn.rows("SELECT status FROM entitlements WHERE account_id = \(account.id) AND product_id = \(productID)", logger)
                .map { try Catalog.Entitlement.Status(stored: try $0.get("status", as: String.self)) }
        }
        if statuses.contains(.active) { return product }
        throw statuses.isEmpty ? .notEntitled(productID) : .revoked(productID)
    }

    /// Whether the account holds an active entitlement to the product.
    public func isEntitled(accountID: String, productID: String) async throws(CatalogError) -> Bool {
        let logger = logger
        return try await withConnection { conn in
            !(try await conn.rows(
                """
                SELECT 1 FROM entitlements WHERE account_id = \(accountID) AND product_id = \(productID) AND status = 'active'
                """, logger
            ).isEmpty)
        }
    }

    /// Marks a product installed on a device (free or entitled products only).
    public func setInstalled(productID: String, version: Int, deviceID: String, account: Account) async throws(CatalogError) {
        let product = try await downloadable(productID: productID, account: account)
        guard version >= 1, version <= product.version else {
            throw .unknownVersion(productID: productID, published: product.version)
        }
        let logger = logger
        try await transaction { conn in
            try await Self.checkDevice(conn, id: deviceID, account: account, logger)
            try await conn.run(
                """
                INSERT INTO installs(device_id, product_id, version, status, updated_at)
                VALUES (\(deviceID), \(productID), \(version), 'installed', \(Date().timeIntervalSince1970))
                ON CONFLICT (device_id, product_id) DO UPDATE SET version = excluded.version, status = 'installed',
                    updated_at = excluded.updated_at
                """, logger)
        }
    }

    /// Marks a product uninstalled from a device; the entitlement stays.
    public func setUninstalled(productID: String, deviceID: String, account: Account) async throws(CatalogError) {
        let logger = logger
        try await transaction { conn in
            try await Self.checkDevice(conn, id: deviceID, account: account, logger)
            try await conn.run("DELETE FROM installs WHERE device_id = \(deviceID) AND product_id = \(productID)", logger)
        }
    }

    /// The products installed on any of the account's devices, sorted, each once.
    public func installedProducts(account: Account) async throws(CatalogError) -> [String] {
        let logger = logger
        return try await withConnection { conn in
            try await conn.rows(
                """
                SELECT DISTINCT installs.product_id FROM installs JOIN devices ON devices.id = installs.device_id
                WHERE devices.account_id = \(account.id) AND installs.status = 'installed' ORDER BY installs.product_id
                """, logger
            ).map { r in try r.get("product_id") as String }
        }
    }

    /// The audit log, oldest first.
    public func auditLog(limit: Int = 1000) async throws(CatalogError) -> [AuditEntry] {
        let logger = logger
        return try await withConnection { conn in
            try await conn.rows("SELECT * FROM audit_log ORDER BY id LIMIT \(limit)", logger).map { r in
                AuditEntry(
                    at: Date(timeIntervalSince1970: try r.get("at")), accountId: try r.get("account_id"),
                    productId: try r.get("product_id"), originalTransactionId: try r.get("original_transaction_id"),
                    action: try r.get("action"), reason: try r.get("reason"))
            }
        }
    }

    /// Appends a line to the audit log (inside the caller's transaction).
    static func audit(
        _ conn: PostgresConnection, account: String?, product: String?, originalTransaction: String?,
        action: AuditAction, reason: String, _ logger: Logger
    ) async throws {
        try await conn.run(
            """
            INSERT INTO audit_log(at, account_id, product_id, original_transaction_id, action, reason)
            VALUES (\(Date().timeIntervalSince1970), \(account), \(product), \(originalTransaction), \(action.rawValue), \(reason))
            """, logger)
    }

    /// Takes a transaction-scoped advisory lock named `name` (released at commit or rollback).
    static func lock(_ conn: PostgresConnection, _ name: String, _ logger: Logger) async throws {
        try await conn.run("SELECT pg_advisory_xact_lock(hashtextextended(\(name), 0))", logger)
    }
}
