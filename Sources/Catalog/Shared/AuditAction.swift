import Foundation

/// What an audit line records, as both catalog backends write it in `audit_log.action`. Lines
/// are read back as their stored text (`AuditEntry.action`), so a line another version wrote (or
/// an operator's note) still reads as it was.
package enum AuditAction: String, CaseIterable, Sendable {
    /// An entitlement granted by a purchase (a product's or an area's).
    case grant
    /// A purchase recorded for a product the account already owns: no new entitlement.
    case purchaseRecorded = "purchase_recorded"
    /// An entitlement revoked by a REFUND or REVOKE notification.
    case revoke
    /// An entitlement restored by a REFUND_REVERSED notification.
    case restore
    /// Every tile-token key revoked and a new one made.
    case revokeTileTokenKeys = "revoke_tile_token_keys"
}
