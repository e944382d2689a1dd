import Catalog
import Foundation
import GRDB

extension CatalogDatabase {
    /// The notification types that change an entitlement.
    static let revocationTypes = RevocationRules.types

    /// Applies a verified notification: REFUND and REVOKE revoke the entitlement of its original
    /// transaction (installs are marked revoked), REFUND_REVERSED restores it. Each
    /// notificationUUID is handled once; of one transaction's notifications the newest by
    /// `signedDate` decides; one for a transaction not yet recorded waits for its purchase.
    public func apply(_ e: StoreEvent) throws(CatalogError) -> StoreEventOutcome {
        try write { db in
            try db.execute(
                sql: """
                    INSERT OR IGNORE INTO notifications(notification_uuid, type, subtype, original_transaction_id, received_at,
                                                        signed_at, revocation_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    e.notificationUUID, e.type, e.subtype, e.originalTransactionId, Date().timeIntervalSince1970,
                    e.signedDate?.timeIntervalSince1970 ?? 0, e.revocationDate?.timeIntervalSince1970
                ])
            guard db.changesCount == 1 else { return .duplicate }
            guard let original = e.originalTransactionId else { return .ignored }
            let row = try Row.fetchOne(
                db, sql: "SELECT account_id, product_id, status FROM entitlements WHERE original_transaction_id = ?",
                arguments: [original])
            let latest = row == nil ? nil : try Self.latestRevocationEvent(db, originalTransaction: original)
            let status = try (row?["status"] as String?).map { raw throws(CatalogError) in try Entitlement.Status(stored: raw) }
            switch RevocationRules.decide(e, entitlementStatus: status, latest: latest) {
            case let .outcome(outcome): return outcome
            case let .set(revoke):
                guard let row else { return .pending }
                try Self.setRevoked(
                    db, revoke, account: row["account_id"], product: row["product_id"], originalTransaction: original,
                    reason: RevocationRules.reason(
                        type: e.type, subtype: e.subtype, uuid: e.notificationUUID,
                        revokedAt: e.revocationDate))
                return revoke ? .revoked : .restored
            }
        }
    }

    /// The newest (by signed date, then arrival) REFUND, REVOKE or REFUND_REVERSED recorded for a transaction.
    static func latestRevocationEvent(_ db: Database, originalTransaction: String) throws -> StoreEvent? {
        try Row.fetchOne(
            db,
            sql: """
                SELECT notification_uuid, type, subtype, signed_at, revocation_at FROM notifications
                WHERE original_transaction_id = ? AND type IN ('REFUND', 'REVOKE', 'REFUND_REVERSED')
                ORDER BY signed_at DESC, rowid DESC LIMIT 1
                """, arguments: [originalTransaction]
        ).map { r in
            let revokedAt: Double? = r["revocation_at"]
            return StoreEvent(
                notificationUUID: r["notification_uuid"], type: r["type"], subtype: r["subtype"],
                originalTransactionId: originalTransaction, transactionId: nil,
                signedDate: Date(timeIntervalSince1970: r["signed_at"]),
                revocationDate: revokedAt.map(Date.init(timeIntervalSince1970:)))
        }
    }

    /// Revokes (or restores) an entitlement and the account's installs of its product, with an audit line.
    static func setRevoked(
        _ db: Database, _ revoke: Bool, account: String, product: String, originalTransaction: String,
        reason: String
    ) throws {
        let now = Date().timeIntervalSince1970
        if revoke {
            try db.execute(
                sql: "UPDATE entitlements SET status = 'revoked', reason = ?, updated_at = ? WHERE original_transaction_id = ?",
                arguments: [reason, now, originalTransaction])
            try db.execute(
                sql: """
                    UPDATE installs SET status = 'revoked', updated_at = ?
                    WHERE product_id = ? AND device_id IN (SELECT id FROM devices WHERE account_id = ?)
                    """, arguments: [now, product, account])
        } else {
            try db.execute(
                sql: "UPDATE entitlements SET status = 'active', reason = NULL, updated_at = ? WHERE original_transaction_id = ?",
                arguments: [now, originalTransaction])
            try db.execute(
                sql: """
                    UPDATE installs SET status = 'installed', updated_at = ?
                    WHERE product_id = ? AND status = 'revoked' AND device_id IN (SELECT id FROM devices WHERE account_id = ?)
                    """, arguments: [now, product, account])
        }
        try audit(
            db, account: account, product: product, originalTransaction: originalTransaction,
            action: revoke ? .revoke : .restore, reason: reason)
    }
}
