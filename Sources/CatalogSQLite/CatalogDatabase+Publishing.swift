import Catalog
import Foundation
import GRDB
import TileGeometry
import TileStore
import TrailMapAPI

extension CatalogDatabase {
    /// Adds or updates the products of a product file from the bundles in `tilesDirectory`.
    /// A bundle whose SHA-256 differs from the published one becomes a new product version.
    /// Every bundle is checked before anything is written: one bad bundle publishes nothing.
    public func publish(_ file: ProductFile, tilesDirectory: String) throws(CatalogError) -> [PublishResult] {
        let prepared = try ProductPublishing.describe(file, tilesDirectory: tilesDirectory)
        return try write { db in
            try prepared.map { p in try Self.upsert(db, p) }
        }
    }

    /// One product's upsert (`ProductUpsert`) in SQLite.
    private static func upsert(_ db: Database, _ p: Product) throws -> PublishResult {
        let before = try Row.fetchOne(db, sql: "SELECT * FROM products WHERE id = ?", arguments: [p.id]).map(Product.init(row:))
        let other = try String.fetchOne(db, sql: "SELECT id FROM products WHERE tileset = ? AND id != ?", arguments: [p.tileset, p.id])
        let u = try ProductUpsert(p, before: before, tilesetOwner: other)
        for c in u.categories {
            try db.execute(
                sql: "INSERT OR IGNORE INTO categories(path, name, parent) VALUES (?, ?, ?)",
                arguments: [c.path, c.name, c.parent])
        }
        try db.execute(
            sql: """
                INSERT INTO products(\(ProductUpsert.columns))
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                \(ProductUpsert.onConflict)
                """,
            arguments: [
                p.id, p.title, p.category, p.description, p.price.amount, p.price.currency, p.free, p.tileset,
                p.bundlePath, u.version, p.size, p.sha256, p.minZoom, p.maxZoom,
                p.bounds.west, p.bounds.south, p.bounds.east, p.bounds.north, u.now, BundleLayer.encode(p.layers),
                p.kind.rawValue, p.areaJSON
            ])
        try db.execute(
            sql: """
                INSERT OR IGNORE INTO product_versions(product_id, version, sha256, size, published_at) VALUES (?, ?, ?, ?, ?)
                """, arguments: [p.id, u.version, p.sha256, p.size, u.now])
        return u.result
    }
}
