import Foundation

/// Publishing one product over what a catalog holds, apart from the database: the rules both
/// catalog backends follow (`CatalogDatabase.publish`, `PostgresCatalog.publish`), written once.
/// A backend reads the product's row as it stands (`before`, whatever its owner) and the id of
/// another product holding the same bundle (`tilesetOwner`), makes an upsert of them, writes its
/// `categories`, its `products` row (`columns`, `onConflict`) and its `product_versions` row in
/// its own SQL, and answers `result`.
package struct ProductUpsert: Sendable {
    /// The product as published (its `version` and `publishedAt` are the file's, not these).
    package let product: Product
    /// The version it is published at: the current one for the same bundle, the next one for
    /// another bundle, 1 for a new product.
    package let version: Int
    /// The publish time (`published_at`, seconds since 1970): a row whose bundle is the same
    /// keeps its earlier one (`onConflict`).
    package let now: TimeInterval
    /// What this publish does to the product.
    package let change: PublishResult.Change

    /// Refuses (`CatalogError.productFile`) a bundle another product holds, and a product id that
    /// is an area an account bought.
    package init(_ p: Product, before: Product?, tilesetOwner: String?, now: Date = Date()) throws(CatalogError) {
        if let other = tilesetOwner {
            throw .productFile(path: p.bundlePath, reason: "bundle \(p.tileset) already belongs to product \(other)")
        }
        if before?.owner != nil { throw .productFile(path: p.bundlePath, reason: "product id \(p.id) is an area an account bought") }
        let (version, first) = Self.version(current: before.map { ($0.version, $0.sha256) }, sha256: p.sha256)
        product = p
        self.version = version
        self.now = now.timeIntervalSince1970
        change = Self.finalChange(first, before: before, new: p, version: version)
    }

    /// What the publish did, as `publish` answers it.
    package var result: PublishResult {
        PublishResult(productId: product.id, version: version, change: change, size: product.size, sha256: product.sha256)
    }

    /// The `categories` rows the product's category needs (path, name, parent), outermost first.
    package var categories: [(path: String, name: String, parent: String?)] { ListingRules.categoryChain(product.category) }

    /// The columns of a `products` row a publish writes, in the order a backend gives the values:
    /// id, title, category, description, price amount and currency, free, tileset, bundle path,
    /// `version`, size, SHA-256, zooms, bounds (west, south, east, north), `now`, layers (JSON),
    /// kind and area (JSON).
    package static let columns = """
        id, title, category, description, price_amount, price_currency, free, tileset, bundle_path,
            version, size, sha256, min_zoom, max_zoom, west, south, east, north, published_at, layers_json, kind, area_json
        """

    /// What a publish of a product already in `products` updates (SQLite and PostgreSQL alike):
    /// every column but the owner, the publish time only when the bundle changed.
    package static let onConflict = """
        ON CONFLICT (id) DO UPDATE SET title = excluded.title, category = excluded.category,
            description = excluded.description, price_amount = excluded.price_amount,
            price_currency = excluded.price_currency, free = excluded.free, tileset = excluded.tileset,
            bundle_path = excluded.bundle_path, version = excluded.version, size = excluded.size,
            sha256 = excluded.sha256, min_zoom = excluded.min_zoom, max_zoom = excluded.max_zoom,
            west = excluded.west, south = excluded.south, east = excluded.east, north = excluded.north,
            layers_json = excluded.layers_json, kind = excluded.kind, area_json = excluded.area_json,
            published_at = CASE WHEN products.sha256 = excluded.sha256 THEN products.published_at ELSE excluded.published_at END
        """

    /// The version and change for a product whose published row is `current` (version, SHA-256), if any.
    static func version(current: (version: Int, sha256: String)?, sha256: String) -> (Int, PublishResult.Change) {
        guard let current else { return (1, .added) }
        return current.sha256 == sha256 ? (current.version, .updated) : (current.version + 1, .newVersion)
    }

    /// `.updated` becomes `.unchanged` when nothing but the publish time would differ from `before`.
    static func finalChange(_ change: PublishResult.Change, before: Product?, new p: Product, version: Int) -> PublishResult.Change {
        guard change == .updated, var b = before else { return change }
        b.version = version
        b.publishedAt = p.publishedAt
        var q = p
        q.version = version
        q.publishedAt = b.publishedAt
        return b == q ? .unchanged : change
    }
}
