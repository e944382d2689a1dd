import Foundation

/// How REFUND, REVOKE and REFUND_REVERSED notifications act on an entitlement, apart from the
/// database they are kept in: both catalog backends record the notification, then ask `decide`.
package enum RevocationRules {
    /// A notification type that changes an entitlement: the store's `notificationType`, the
    /// string kept in `notifications.type`. Any other type is not one the catalog acts on.
    package enum Kind: String, CaseIterable, Sendable {
        case refund = "REFUND"
        case revoke = "REVOKE"
        case refundReversed = "REFUND_REVERSED"

        /// Whether it revokes the entitlement (REFUND, REVOKE) rather than restoring it.
        package var revokes: Bool { self != .refundReversed }
    }

    /// The notification types that change an entitlement, as stored.
    package static let types = Kind.allCases.map(\.rawValue)

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
        guard let kind = Kind(rawValue: e.type), e.originalTransactionId != nil else { return .outcome(.ignored) }
        guard let status = entitlementStatus else { return .outcome(.pending) }
        guard let latest, latest.notificationUUID == e.notificationUUID else { return .outcome(.superseded) }
        let revoke = kind.revokes
        guard status == (revoke ? .active : .revoked) else { return .outcome(.ignored) }
        return .set(revoke: revoke)
    }

    /// The reason to revoke a purchase being recorded now, when the newest notification recorded
    /// for its transaction (`latest`) is a REFUND or REVOKE that arrived before it; else nil.
    package static func pendingRevocation(latest: StoreEvent?) -> String? {
        guard let latest, Kind(rawValue: latest.type) != .refundReversed else { return nil }
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
