import Foundation

/// The tile-token keys, shared by every server on the catalog (`CatalogStore`).
public protocol TileTokenKeyStore: Sendable {
    func tileTokenKeys(now: Date, rotateAfter: TimeInterval, keep: TimeInterval) async throws(CatalogError) -> [TileTokenKey]
    func revokeTileTokenKeys(now: Date) async throws(CatalogError) -> TileTokenKey
}
