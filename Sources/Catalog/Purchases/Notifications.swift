import Foundation
import GRDB

/// The facts of a verified App Store Server Notification V2 that the catalog acts on.
public struct StoreEvent: Sendable, Equatable {
    public var notificationUUID: String
    public var type: String
    public var subtype: String?
    /// From the notification's signed transaction, when it has one.
    public var originalTransactionId: String?
    public var transactionId: String?

    public init(notificationUUID: String, type: String, subtype: String?, originalTransactionId: String?, transactionId: String?) {
        self.notificationUUID = notificationUUID
        self.type = type
        self.subtype = subtype
        self.originalTransactionId = originalTransactionId
        self.transactionId = transactionId
    }
}

/// What a notification did.
public enum StoreEventOutcome: String, Sendable {
    case revoked, restored
    /// The same notificationUUID was handled before: nothing changed.
    case duplicate
    /// Not a type the catalog acts on, or no entitlement matches.
    case ignored
}

extension CatalogDatabase {
    /// Applies a verified notification: REFUND and REVOKE revoke the entitlement of its original
    /// transaction (installs are marked revoked), REFUND_REVERSED restores it. Each
    /// notificationUUID is handled once.
    public func apply(_ e: StoreEvent) throws(CatalogError) -> StoreEventOutcome {
        try write { db in
            try db.execute(sql: """
                INSERT OR IGNORE INTO notifications(notification_uuid, type, subtype, original_transaction_id, received_at)
                VALUES (?, ?, ?, ?, ?)
                """, arguments: [e.notificationUUID, e.type, e.subtype, e.originalTransactionId, Date().timeIntervalSince1970])
            guard db.changesCount == 1 else { return .duplicate }
            guard let original = e.originalTransactionId,
                  let row = try Row.fetchOne(db, sql: "SELECT account_id, product_id, status FROM entitlements WHERE original_transaction_id = ?",
                                             arguments: [original])
            else { return .ignored }
            let account: String = row["account_id"], product: String = row["product_id"], status: String = row["status"]
            let why = [e.type, e.subtype].compactMap { $0 }.joined(separator: "/")
            let now = Date().timeIntervalSince1970
            switch e.type {
            case "REFUND", "REVOKE":
                guard status == "active" else { return .ignored }
                try db.execute(sql: "UPDATE entitlements SET status = 'revoked', reason = ?, updated_at = ? WHERE original_transaction_id = ?",
                               arguments: [why, now, original])
                try db.execute(sql: """
                    UPDATE installs SET status = 'revoked', updated_at = ?
                    WHERE product_id = ? AND device_id IN (SELECT id FROM devices WHERE account_id = ?)
                    """, arguments: [now, product, account])
                try Self.audit(db, account: account, product: product, originalTransaction: original, action: "revoke",
                               reason: "\(why) notification \(e.notificationUUID)")
                return .revoked
            case "REFUND_REVERSED":
                guard status == "revoked" else { return .ignored }
                try db.execute(sql: "UPDATE entitlements SET status = 'active', reason = NULL, updated_at = ? WHERE original_transaction_id = ?",
                               arguments: [now, original])
                try db.execute(sql: """
                    UPDATE installs SET status = 'installed', updated_at = ?
                    WHERE product_id = ? AND status = 'revoked' AND device_id IN (SELECT id FROM devices WHERE account_id = ?)
                    """, arguments: [now, product, account])
                try Self.audit(db, account: account, product: product, originalTransaction: original, action: "restore",
                               reason: "\(why) notification \(e.notificationUUID)")
                return .restored
            default:
                return .ignored
            }
        }
    }
}
