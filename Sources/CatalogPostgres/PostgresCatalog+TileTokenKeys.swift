import Catalog
import Foundation
import Logging
import PostgresNIO

/// Tile-token keys in `tile_token_keys`, shared by every server (see `CatalogDatabase.tileTokenKeys`).
extension PostgresCatalog {
    /// The tile-token keys in use, newest (the signing key) first; rotates and deletes as
    /// `CatalogDatabase` does (`TileKeyRules`). Servers rotating at once take turns on an
    /// advisory lock, so one new key is made, not one per server.
    public func tileTokenKeys(
        now: Date = Date(), rotateAfter: TimeInterval, keep: TimeInterval
    ) async throws(CatalogError) -> [TileTokenKey] {
        let t = now.timeIntervalSince1970, logger = logger
        let current = try await withConnection { conn in try await Self.keys(conn, logger) }
        if let newest = current.first, newest.createdAt.timeIntervalSince1970 > t - rotateAfter,
            TileKeyRules.expired(current, now: t, keep: keep).isEmpty
        {
            return current
        }
        return try await transaction { conn in
            try await conn.run("SELECT pg_advisory_xact_lock(\(Self.tileKeyLock))", logger)
            var keys = try await Self.keys(conn, logger)
            if TileKeyRules.needsNewKey(keys, now: t, rotateAfter: rotateAfter) {
                try await conn.run(
                    """
                    INSERT INTO tile_token_keys(secret, created_at) VALUES (\(ByteBuffer(bytes: Data.catalogRandom(count: 32))), \(t))
                    """, logger)
                keys = try await Self.keys(conn, logger)
            }
            let expired = TileKeyRules.expired(keys, now: t, keep: keep).map { Int($0) }
            if !expired.isEmpty {
                try await conn.run("DELETE FROM tile_token_keys WHERE id = ANY(\(expired))", logger)
            }
            return try await Self.keys(conn, logger)
        }
    }

    /// Replaces every tile-token key with a new one: every tile token issued so far stops working.
    @discardableResult
    public func revokeTileTokenKeys(now: Date = Date()) async throws(CatalogError) -> TileTokenKey {
        let logger = logger
        return try await transaction { conn in
            try await conn.run("SELECT pg_advisory_xact_lock(\(Self.tileKeyLock))", logger)
            try await conn.run("DELETE FROM tile_token_keys", logger)
            try await conn.run(
                """
                INSERT INTO tile_token_keys(secret, created_at)
                VALUES (\(ByteBuffer(bytes: Data.catalogRandom(count: 32))), \(now.timeIntervalSince1970))
                """, logger)
            try await Self.audit(
                conn, account: nil, product: nil, originalTransaction: nil, action: .revokeTileTokenKeys,
                reason: "every tile token issued before now stops working", logger)
            guard let key = try await Self.keys(conn, logger).first else {
                throw CatalogError.database("the new tile-token key was not stored")
            }
            return key
        }
    }

    static let tileKeyLock: Int = 0x7472_6169_6C6B_6579

    private static func keys(_ conn: PostgresConnection, _ logger: Logger) async throws -> [TileTokenKey] {
        try await conn.rows("SELECT id, secret, created_at FROM tile_token_keys ORDER BY id DESC", logger).map {
            TileTokenKey(
                id: try $0.get("id"), secret: try $0.get("secret"), createdAt: Date(timeIntervalSince1970: try $0.get("created_at")))
        }
    }
}
