import Catalog
import Foundation
import GRDB

extension CatalogDatabase {
    /// The tile-token keys in use, newest (the signing key) first. A new key is made when the
    /// newest is older than `rotateAfter` (or there is none); a key replaced more than `keep`
    /// ago (the tokens' lifetime: none it signed is still valid) is deleted.
    public func tileTokenKeys(now: Date = Date(), rotateAfter: TimeInterval, keep: TimeInterval) throws(CatalogError) -> [TileTokenKey] {
        let t = now.timeIntervalSince1970
        let current = try read { db in try Self.keys(db) }
        if let newest = current.first, newest.createdAt.timeIntervalSince1970 > t - rotateAfter,
            TileKeyRules.expired(current, now: t, keep: keep).isEmpty
        {
            return current
        }
        return try write { db in
            var keys = try Self.keys(db)
            if TileKeyRules.needsNewKey(keys, now: t, rotateAfter: rotateAfter) {
                try db.execute(
                    sql: "INSERT INTO tile_token_keys(secret, created_at) VALUES (?, ?)",
                    arguments: [Data.catalogRandom(count: 32), t])
                keys = try Self.keys(db)
            }
            for id in TileKeyRules.expired(keys, now: t, keep: keep) {
                try db.execute(sql: "DELETE FROM tile_token_keys WHERE id = ?", arguments: [id])
            }
            return try Self.keys(db)
        }
    }

    /// Replaces every tile-token key with a new one: every tile token issued so far stops
    /// working (servers notice within `TileTokens.refreshInterval`). For a leaked key.
    @discardableResult
    public func revokeTileTokenKeys(now: Date = Date()) throws(CatalogError) -> TileTokenKey {
        try write { db in
            try db.execute(sql: "DELETE FROM tile_token_keys")
            try db.execute(
                sql: "INSERT INTO tile_token_keys(secret, created_at) VALUES (?, ?)",
                arguments: [Data.catalogRandom(count: 32), now.timeIntervalSince1970])
            try Self.audit(
                db, account: nil, product: nil, originalTransaction: nil, action: .revokeTileTokenKeys,
                reason: "every tile token issued before now stops working")
            return try Self.keys(db)[0]
        }
    }

    private static func keys(_ db: Database) throws -> [TileTokenKey] {
        try Row.fetchAll(db, sql: "SELECT id, secret, created_at FROM tile_token_keys ORDER BY id DESC").map {
            TileTokenKey(id: $0["id"], secret: $0["secret"], createdAt: Date(timeIntervalSince1970: $0["created_at"]))
        }
    }
}
