import Catalog
import Foundation
import TrailMapAPI
import GRDB
import TileGeometry

/// Area quotes and purchases in the SQLite catalog.
extension CatalogDatabase {
    /// Keeps a quote. The account's oldest unbought quotes beyond `keepPerAccount` are dropped:
    /// returns their bundle files, for the caller to delete.
    public func saveAreaQuote(_ q: AreaQuoteRecord, keepPerAccount: Int) throws(CatalogError) -> [String] {
        try write { db in
            try db.execute(
                sql: """
                    INSERT INTO area_quotes(id, account_id, product_id, title, bundle_path, size, sha256, tiles, min_zoom, max_zoom,
                        requested_max_zoom, west, south, east, north, created_at, expires_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    q.id, q.accountId, q.productId, q.title, q.bundlePath, q.size, q.sha256, q.tiles, q.minZoom, q.maxZoom,
                    q.requestedMaxZoom, q.bounds.west, q.bounds.south, q.bounds.east, q.bounds.north,
                    q.createdAt.timeIntervalSince1970, q.expiresAt.timeIntervalSince1970
                ])
            let old = try Row.fetchAll(
                db,
                sql: """
                    SELECT id, bundle_path FROM area_quotes WHERE account_id = ? AND area_id IS NULL
                    ORDER BY created_at DESC, id LIMIT -1 OFFSET ?
                    """, arguments: [q.accountId, max(1, keepPerAccount)])
            for r in old { try db.execute(sql: "DELETE FROM area_quotes WHERE id = ?", arguments: [r["id"] as String]) }
            return old.map { $0["bundle_path"] }
        }
    }

    /// The account's quote, or nil (missing, or another account's).
    public func areaQuote(id: String, account: Account) throws(CatalogError) -> AreaQuoteRecord? {
        try read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM area_quotes WHERE id = ? AND account_id = ?", arguments: [id, account.id])
                .map(AreaQuoteRecord.init(row:))
        }
    }

    /// Buys a quote with a verified Consumable transaction: records the transaction, the area (a
    /// product of the account's own) and its entitlement, all or nothing. The same transaction
    /// again answers the same area (`alreadyRecorded`); a transaction that paid for anything else,
    /// a quote bought already, expired or another account's, or a transaction for another product
    /// is refused and nothing is written.
    public func buyArea(
        quoteID: String, purchase p: StorePurchase, account: Account, now: Date = Date()
    ) throws(CatalogError) -> AreaOutcome {
        if let token = p.appAccountToken, token.lowercased() != account.appAccountToken.lowercased() { throw .accountTokenMismatch }
        if p.revocationDate != nil { throw .revoked(p.productId) }
        return try write { db in
            if let owner = try String.fetchOne(
                db, sql: "SELECT account_id FROM transactions WHERE transaction_id = ?", arguments: [p.transactionId])
            {
                guard owner == account.id else { throw CatalogError.transactionClaimed }
                let bought = try Row.fetchOne(
                    db, sql: "SELECT id, area_id FROM area_quotes WHERE transaction_id = ?", arguments: [p.transactionId])
                guard let bought, bought["id"] as String == quoteID, let areaID = bought["area_id"] as String?,
                    let area = try Row.fetchOne(db, sql: "SELECT * FROM products WHERE id = ?", arguments: [areaID]).map(Product.init(row:))
                else { throw CatalogError.transactionUsed(p.transactionId) }
                return AreaOutcome(area: area, transactionId: p.transactionId, alreadyRecorded: true)
            }
            if try Bool.fetchOne(
                db, sql: "SELECT 1 FROM entitlements WHERE original_transaction_id = ?", arguments: [p.originalTransactionId]) == true
            {
                throw CatalogError.transactionUsed(p.transactionId)
            }
            let quote = try Row.fetchOne(
                db, sql: "SELECT * FROM area_quotes WHERE id = ? AND account_id = ?", arguments: [quoteID, account.id]
            )
            .map(AreaQuoteRecord.init(row:))
            let q = try AreaRules.check(quote, id: quoteID, purchase: p, now: now)
            guard
                let offer = try Row.fetchOne(db, sql: "SELECT * FROM products WHERE id = ?", arguments: [q.productId]).map(
                    Product.init(row:)),
                offer.kind == .areaProduct
            else { throw CatalogError.unknownProduct(q.productId) }
            let area = AreaRules.area(from: q, offer: offer, account: account)
            let t = now.timeIntervalSince1970
            try db.execute(
                sql: """
                    INSERT INTO transactions(transaction_id, original_transaction_id, account_id, product_id, purchase_date,
                    environment, recorded_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    p.transactionId, p.originalTransactionId, account.id, p.productId, p.purchaseDate.timeIntervalSince1970,
                    p.environment, t
                ])
            try Self.insertProduct(db, area, publishedAt: t)
            try db.execute(
                sql: """
                    INSERT INTO product_versions(product_id, version, sha256, size, published_at) VALUES (?, 1, ?, ?, ?)
                    """, arguments: [area.id, area.sha256, area.size, t])
            try db.execute(
                sql: """
                    INSERT INTO entitlements(original_transaction_id, account_id, product_id, status, reason, granted_at, updated_at)
                    VALUES (?, ?, ?, 'active', NULL, ?, ?)
                    """, arguments: [p.originalTransactionId, account.id, area.id, t, t])
            try db.execute(
                sql: "UPDATE area_quotes SET area_id = ?, transaction_id = ? WHERE id = ?",
                arguments: [area.id, p.transactionId, q.id])
            try Self.audit(
                db, account: account.id, product: area.id, originalTransaction: p.originalTransactionId, action: .grant,
                reason: "area purchase (quote \(q.id), \(offer.id)), transaction \(p.transactionId) (\(p.environment))")
            if let reason = RevocationRules.pendingRevocation(
                latest: try Self.latestRevocationEvent(db, originalTransaction: p.originalTransactionId))
            {
                try Self.setRevoked(
                    db, true, account: account.id, product: area.id, originalTransaction: p.originalTransactionId, reason: reason)
            }
            return AreaOutcome(area: area, transactionId: p.transactionId, alreadyRecorded: false)
        }
    }

    /// Drops the unbought quotes that expired before `before`: returns their bundle files, for
    /// the caller to delete.
    public func removeExpiredAreaQuotes(before: Date) throws(CatalogError) -> [String] {
        try write { db in
            let rows = try Row.fetchAll(
                db, sql: "SELECT id, bundle_path FROM area_quotes WHERE area_id IS NULL AND expires_at < ?",
                arguments: [before.timeIntervalSince1970])
            for r in rows { try db.execute(sql: "DELETE FROM area_quotes WHERE id = ?", arguments: [r["id"] as String]) }
            return rows.map { $0["bundle_path"] }
        }
    }

    /// The bytes of the cut bundles not bought yet: every account's (`accountID` nil) or one account's.
    public func unboughtAreaQuoteBytes(accountID: String?) throws(CatalogError) -> Int64 {
        try read { db in
            try Int64.fetchOne(
                db, sql: "SELECT COALESCE(SUM(size), 0) FROM area_quotes WHERE area_id IS NULL AND (? IS NULL OR account_id = ?)",
                arguments: [accountID, accountID]) ?? 0
        }
    }

    /// Inserts a product row with every column (a bought area).
    static func insertProduct(_ db: Database, _ p: Product, publishedAt: TimeInterval) throws {
        try db.execute(
            sql: """
                INSERT INTO products(id, title, category, description, price_amount, price_currency, free, tileset, bundle_path,
                    version, size, sha256, min_zoom, max_zoom, west, south, east, north, published_at, layers_json, kind, owner, area_json)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, '[]', ?, ?, ?)
                """,
            arguments: [
                p.id, p.title, p.category, p.description, p.price.amount, p.price.currency, p.free, p.tileset, p.bundlePath,
                p.version, p.size, p.sha256, p.minZoom, p.maxZoom, p.bounds.west, p.bounds.south, p.bounds.east,
                p.bounds.north, publishedAt, p.kind.rawValue, p.owner, p.areaJSON
            ])
    }
}

extension AreaQuoteRecord {
    init(row r: Row) {
        self.init(
            id: r["id"], accountId: r["account_id"], productId: r["product_id"], title: r["title"], bundlePath: r["bundle_path"],
            size: r["size"], sha256: r["sha256"], tiles: r["tiles"], minZoom: r["min_zoom"], maxZoom: r["max_zoom"],
            requestedMaxZoom: r["requested_max_zoom"],
            bounds: GeoBounds(west: r["west"], south: r["south"], east: r["east"], north: r["north"]),
            createdAt: Date(timeIntervalSince1970: r["created_at"]), expiresAt: Date(timeIntervalSince1970: r["expires_at"]),
            areaId: r["area_id"], transactionId: r["transaction_id"])
    }
}
