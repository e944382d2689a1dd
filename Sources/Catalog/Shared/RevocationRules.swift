import Foundation

/// How REFUND, REVOKE and REFUND_REVERSED notifications act on an entitlement, apart from the
/// database they are kept in: both catalog backends record the notification, then ask `decide`.
package enum RevocationRules {
    /// The notification types that change an entitlement.
    package static let types = ["REFUND", "REVOKE", "REFUND_REVERSED"]

    /// What a newly recorded (not duplicate) notification does.
    package enum Step: Equatable {
        /// Nothing to change; the notification's outcome.
        case outcome(StoreEventOutcome)
        /// Revoke (true) or restore (false) the entitlement of the original transaction.
        case set(revoke: Bool)
    }

    /// The step for `e`, given the entitlement's status (nil: no purchase recorded yet) and the
    /// newest revocation notification recorded for its transaction (by signed date, then arrival;
    /// `e` included).
    package static func decide(_ e: StoreEvent, entitlementStatus: Entitlement.Status?, latest: StoreEvent?) -> Step {
        guard types.contains(e.type), e.originalTransactionId != nil else { return .outcome(.ignored) }
        guard let status = entitlementStatus else { return .outcome(.pending) }
        guard let latest, latest.notificationUUID == e.notificationUUID else { return .outcome(.superseded) }
        let revoke = e.type != "REFUND_REVERSED"
        guard status == (revoke ? .active : .revoked) else { return .outcome(.ignored) }
        return .set(revoke: revoke)
    }

    /// The reason to revoke a purchase being recorded now, when the newest notification recorded
    /// for its transaction (`latest`) is a REFUND or REVOKE that arrived before it; else nil.
    package static func pendingRevocation(latest: StoreEvent?) -> String? {
        guard let latest, latest.type != "REFUND_REVERSED" else { return nil }
        return reason(type: latest.type, subtype: latest.subtype, uuid: latest.notificationUUID, revokedAt: latest.revocationDate)
            + " (received before the purchase)"
    }

    /// The entitlement's reason and the audit line for a notification.
    package static func reason(type: String, subtype: String?, uuid: String, revokedAt: Date?) -> String {
        let why = [type, subtype].compactMap { $0 }.joined(separator: "/")
        let when = revokedAt.map { ", revoked by the store at \(ISO8601DateFormatter().string(from: $0))" } ?? ""
        return "\(why) notification \(uuid)\(when)"
    }
}
