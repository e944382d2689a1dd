import Catalog
import Foundation
import Logging
import PostgresNIO

/// Store notifications (refunds, revocations, reversals), as `CatalogDatabase.apply` does them.
extension PostgresCatalog {
    /// Applies a verified notification (see `CatalogDatabase.apply`; the decision is
    /// `RevocationRules.decide`, shared). Each notificationUUID is handled once across every
    /// server (its primary key, `ON CONFLICT DO NOTHING`); notifications of one transaction, and
    /// its purchase, take turns on an advisory lock, so "the newest by signed date decides"
    /// holds when they arrive at several servers at once.
    public func apply(_ e: StoreEvent) async throws(CatalogError) -> StoreEventOutcome {
        let logger = logger
        return try await transaction { conn in
            if let original = e.originalTransactionId {
                try await Self.lock(conn, "original-transaction:" + original, logger)
            }
            let recorded = try await conn.rows(
                """
                INSERT INTO notifications(notification_uuid, type, subtype, original_transaction_id, received_at, signed_at, revocation_at)
                VALUES (\(e.notificationUUID), \(e.type), \(e.subtype), \(e.originalTransactionId), \(Date().timeIntervalSince1970),
                        \(e.signedDate?.timeIntervalSince1970 ?? 0), \(e.revocationDate?.timeIntervalSince1970))
                ON CONFLICT (notification_uuid) DO NOTHING RETURNING 1
                """, logger)
            guard !recorded.isEmpty else { return .duplicate }
            guard let original = e.originalTransactionId else { return .ignored }
            let row = try await conn.rows(
                """
                SELECT account_id, product_id, status FROM entitlements WHERE original_transaction_id = \(original) FOR UPDATE
                """, logger
            ).first
            let latest = row == nil ? nil : try await Self.latestRevocationEvent(conn, originalTransaction: original, logger)
            let status = try row.map { try Catalog.Entitlement.Status(stored: try $0.get("status", as: String.self)) }
            switch RevocationRules.decide(e, entitlementStatus: status, latest: latest) {
            case let .outcome(outcome): return outcome
            case let .set(revoke):
                guard let row else { return .pending }
                try await Self.setRevoked(
                    conn, revoke, account: try row.get("account_id"), product: try row.get("product_id"),
                    originalTransaction: original,
                    reason: RevocationRules.reason(
                        type: e.type, subtype: e.subtype, uuid: e.notificationUUID,
                        revokedAt: e.revocationDate), logger)
                return revoke ? .revoked : .restored
            }
        }
    }

    /// The newest (by signed date, then arrival) REFUND, REVOKE or REFUND_REVERSED recorded for a transaction.
    static func latestRevocationEvent(_ conn: PostgresConnection, originalTransaction: String, _ logger: Logger) async throws -> StoreEvent?
    {
        try await conn.rows(
            """
            SELECT notification_uuid, type, subtype, signed_at, revocation_at FROM notifications
            WHERE original_transaction_id = \(originalTransaction) AND type IN ('REFUND', 'REVOKE', 'REFUND_REVERSED')
            ORDER BY signed_at DESC, arrival DESC LIMIT 1
            """, logger
        ).first.map { r in
            StoreEvent(
                notificationUUID: try r.get("notification_uuid"), type: try r.get("type"), subtype: try r.get("subtype"),
                originalTransactionId: originalTransaction, transactionId: nil,
                signedDate: Date(timeIntervalSince1970: try r.get("signed_at")),
                revocationDate: try r.get("revocation_at", as: Double?.self).map(Date.init(timeIntervalSince1970:)))
        }
    }

    /// Revokes (or restores) an entitlement and the account's installs of its product, with an audit line.
    static func setRevoked(
        _ conn: PostgresConnection, _ revoke: Bool, account: String, product: String, originalTransaction: String,
        reason: String, _ logger: Logger
    ) async throws {
        let now = Date().timeIntervalSince1970
        if revoke {
            try await conn.run(
                """
                UPDATE entitlements SET status = 'revoked', reason = \(reason), updated_at = \(now)
                WHERE original_transaction_id = \(originalTransaction)
                """, logger)
            try await conn.run(
                """
                UPDATE installs SET status = 'revoked', updated_at = \(now)
                WHERE product_id = \(product) AND device_id IN (SELECT id FROM devices WHERE account_id = \(account))
                """, logger)
        } else {
            try await conn.run(
                """
                UPDATE entitlements SET status = 'active', reason = NULL, updated_at = \(now)
                WHERE original_transaction_id = \(originalTransaction)
                """, logger)
            try await conn.run(
                """
                UPDATE installs SET status = 'installed', updated_at = \(now)
                WHERE product_id = \(product) AND status = 'revoked' AND device_id IN (SELECT id FROM devices WHERE account_id = \(account))
                """, logger)
        }
        try await audit(
            conn, account: account, product: product, originalTransaction: originalTransaction,
            action: revoke ? .revoke : .restore, reason: reason, logger)
    }
}
