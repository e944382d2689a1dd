import Catalog
import Foundation
import TrailMapAPI
import Logging
import PostgresNIO
import TileGeometry

/// Area quotes and purchases, as `CatalogDatabase` does them (see there), race-free across servers.
extension PostgresCatalog {
    public func saveAreaQuote(_ q: AreaQuoteRecord, keepPerAccount: Int) async throws(CatalogError) -> [String] {
        let logger = logger
        return try await transaction { conn in
            try await Self.lock(conn, "area-quotes:" + q.accountId, logger)
            try await conn.run(
                """
                INSERT INTO area_quotes(id, account_id, product_id, title, bundle_path, size, sha256, tiles, min_zoom, max_zoom,
                    requested_max_zoom, west, south, east, north, created_at, expires_at)
                VALUES (\(q.id), \(q.accountId), \(q.productId), \(q.title), \(q.bundlePath), \(q.size), \(q.sha256), \(q.tiles),
                    \(q.minZoom), \(q.maxZoom), \(q.requestedMaxZoom), \(q.bounds.west), \(q.bounds.south), \(q.bounds.east),
                    \(q.bounds.north), \(q.createdAt.timeIntervalSince1970), \(q.expiresAt.timeIntervalSince1970))
                """, logger)
            let keep = max(1, keepPerAccount)
            return try await conn.rows(
                """
                DELETE FROM area_quotes WHERE id IN (
                    SELECT id FROM area_quotes WHERE account_id = \(q.accountId) AND area_id IS NULL
                    ORDER BY created_at DESC, id OFFSET \(keep))
                RETURNING bundle_path
                """, logger
            ).map { try $0.get("bundle_path", as: String.self) }
        }
    }

    public func areaQuote(id: String, account: Account) async throws(CatalogError) -> AreaQuoteRecord? {
        let logger = logger
        return try await withConnection { conn in
            try await conn.rows("SELECT * FROM area_quotes WHERE id = \(id) AND account_id = \(account.id)", logger).first
                .map(AreaQuoteRecord.init(postgres:))
        }
    }

    public func buyArea(
        quoteID: String, purchase p: StorePurchase, account: Account, now: Date = Date()
    ) async throws(CatalogError) -> AreaOutcome {
        if let token = p.appAccountToken, token.lowercased() != account.appAccountToken.lowercased() { throw .accountTokenMismatch }
        if p.revocationDate != nil { throw .revoked(p.productId) }
        let logger = logger
        return try await transaction { conn in
            // The same locks as a region purchase: one writer per account and per transaction.
            try await Self.lock(conn, "purchase-account:" + account.id, logger)
            try await Self.lock(conn, "original-transaction:" + p.originalTransactionId, logger)
            if let owner = try await conn.rows("SELECT account_id FROM transactions WHERE transaction_id = \(p.transactionId)", logger)
                .first
            {
                guard try owner.get("account_id", as: String.self) == account.id else { throw CatalogError.transactionClaimed }
                let bought = try await conn.rows("SELECT id, area_id FROM area_quotes WHERE transaction_id = \(p.transactionId)", logger)
                    .first
                guard let bought, try bought.get("id", as: String.self) == quoteID,
                    let areaID = try bought.get("area_id", as: String?.self),
                    let area = try await Self.product(conn, id: areaID, logger)
                else { throw CatalogError.transactionUsed(p.transactionId) }
                return AreaOutcome(area: area, transactionId: p.transactionId, alreadyRecorded: true)
            }
            if try await !conn.rows("SELECT 1 FROM entitlements WHERE original_transaction_id = \(p.originalTransactionId)", logger).isEmpty
            {
                throw CatalogError.transactionUsed(p.transactionId)
            }
            let quote = try await conn.rows(
                """
                SELECT * FROM area_quotes WHERE id = \(quoteID) AND account_id = \(account.id) FOR UPDATE
                """, logger
            ).first.map(AreaQuoteRecord.init(postgres:))
            let q = try AreaRules.check(quote, id: quoteID, purchase: p, now: now)
            guard let offer = try await Self.product(conn, id: q.productId, logger), offer.kind == .areaProduct else {
                throw CatalogError.unknownProduct(q.productId)
            }
            let area = AreaRules.area(from: q, offer: offer, account: account)
            let t = now.timeIntervalSince1970
            try await conn.run(
                """
                INSERT INTO transactions(transaction_id, original_transaction_id, account_id, product_id, purchase_date, environment,
                recorded_at)
                VALUES (\(p.transactionId), \(p.originalTransactionId), \(account.id), \(p.productId),
                        \(p.purchaseDate.timeIntervalSince1970), \(p.environment), \(t))
                """, logger)
            try await conn.run(
                """
                INSERT INTO products(id, title, category, description, price_amount, price_currency, free, tileset, bundle_path,
                    version, size, sha256, min_zoom, max_zoom, west, south, east, north, published_at, layers_json, kind, owner, area_json)
                VALUES (\(area.id), \(area.title), \(area.category), \(area.description), \(area.price.amount), \(area.price.currency),
                    \(area.free), \(area.tileset), \(area.bundlePath), \(area.version), \(area.size), \(area.sha256), \(area.minZoom),
                    \(area.maxZoom), \(area.bounds.west), \(area.bounds.south), \(area.bounds.east), \(area.bounds.north), \(t), '[]',
                    \(area.kind.rawValue), \(area.owner), \(area.areaJSON))
                """, logger)
            try await conn.run(
                """
                INSERT INTO product_versions(product_id, version, sha256, size, published_at)
                VALUES (\(area.id), 1, \(area.sha256), \(area.size), \(t))
                """, logger)
            try await conn.run(
                """
                INSERT INTO entitlements(original_transaction_id, account_id, product_id, status, reason, granted_at, updated_at)
                VALUES (\(p.originalTransactionId), \(account.id), \(area.id), 'active', NULL, \(t), \(t))
                """, logger)
            try await conn.run(
                "UPDATE area_quotes SET area_id = \(area.id), transaction_id = \(p.transactionId) WHERE id = \(q.id)", logger)
            try await Self.audit(
                conn, account: account.id, product: area.id, originalTransaction: p.originalTransactionId, action: .grant,
                reason: "area purchase (quote \(q.id), \(offer.id)), transaction \(p.transactionId) (\(p.environment))", logger)
            if let reason = RevocationRules.pendingRevocation(
                latest: try await Self.latestRevocationEvent(conn, originalTransaction: p.originalTransactionId, logger))
            {
                try await Self.setRevoked(
                    conn, true, account: account.id, product: area.id, originalTransaction: p.originalTransactionId,
                    reason: reason, logger)
            }
            return AreaOutcome(area: area, transactionId: p.transactionId, alreadyRecorded: false)
        }
    }

    public func removeExpiredAreaQuotes(before: Date) async throws(CatalogError) -> [String] {
        let logger = logger
        return try await transaction { conn in
            try await conn.rows(
                """
                DELETE FROM area_quotes WHERE area_id IS NULL AND expires_at < \(before.timeIntervalSince1970) RETURNING bundle_path
                """, logger
            ).map { try $0.get("bundle_path", as: String.self) }
        }
    }

    /// The bytes of the cut bundles not bought yet: every account's (`accountID` nil) or one account's.
    public func unboughtAreaQuoteBytes(accountID: String?) async throws(CatalogError) -> Int64 {
        let logger = logger
        return try await withConnection { conn in
            let rows =
                if let accountID {
                    try await conn.rows(
                        """
                        SELECT COALESCE(SUM(size), 0)::bigint AS total FROM area_quotes WHERE area_id IS NULL AND account_id = \(accountID)
                        """, logger)
                } else {
                    try await conn.rows("SELECT COALESCE(SUM(size), 0)::bigint AS total FROM area_quotes WHERE area_id IS NULL", logger)
                }
            return try rows.first.map { try $0.get("total", as: Int64.self) } ?? 0
        }
    }
}

extension AreaQuoteRecord {
    init(postgres r: PostgresRandomAccessRow) throws {
        self.init(
            id: try r.get("id"), accountId: try r.get("account_id"), productId: try r.get("product_id"), title: try r.get("title"),
            bundlePath: try r.get("bundle_path"), size: try r.get("size"), sha256: try r.get("sha256"), tiles: try r.get("tiles"),
            minZoom: try r.get("min_zoom"), maxZoom: try r.get("max_zoom"), requestedMaxZoom: try r.get("requested_max_zoom"),
            bounds: GeoBounds(west: try r.get("west"), south: try r.get("south"), east: try r.get("east"), north: try r.get("north")),
            createdAt: Date(timeIntervalSince1970: try r.get("created_at")),
            expiresAt: Date(timeIntervalSince1970: try r.get("expires_at")),
            areaId: try r.get("area_id"), transactionId: try r.get("transaction_id"))
    }
}
