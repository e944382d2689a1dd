import Catalog
import Foundation
import TrailMapAPI
import Logging
import PostgresNIO
import TileGeometry
import TileStore

/// Products, categories, listings, publishing and the change stamp, as `CatalogDatabase` does them.
extension PostgresCatalog {
    /// Every published product, ordered by category and title.
    public func products() async throws(CatalogError) -> [Product] {
        let logger = logger
        return try await withConnection { conn in try await Self.products(conn, logger) }
    }

    /// One product, or nil.
    public func product(id: String) async throws(CatalogError) -> Product? {
        let logger = logger
        return try await withConnection { conn in try await Self.product(conn, id: id, logger) }
    }

    /// The category tree of the published products.
    public func categoryTree() async throws(CatalogError) -> [CategoryNode] {
        let logger = logger
        let rows = try await withConnection { conn in
            try await conn.rows("SELECT path, name, parent FROM categories ORDER BY path COLLATE \"C\"", logger).map { r in
                (
                    path: try r.get("path", as: String.self), name: try r.get("name", as: String.self),
                    parent: try r.get("parent", as: String?.self)
                )
            }
        }
        return ListingRules.categoryTree(rows)
    }

    /// Products with the caller's status (see `CatalogDatabase.listing`), read from one snapshot.
    public func listing(
        account: Account?, deviceID: String?, available: Set<String>?,
        only productID: String? = nil
    ) async throws(CatalogError) -> [ListedProduct] {
        let logger = logger
        return try await transaction(isolation: "REPEATABLE READ READ ONLY", bumpsStamp: false) { conn in
            var products = try await Self.products(conn, visibleTo: account?.id, logger)
            if let productID { products = products.filter { $0.id == productID } }
            var ownedRows = [(productID: String, status: Catalog.Entitlement.Status)]()
            var installed = [String: (Int, InstallStatus)]()
            if let account {
                for r in try await conn.rows("SELECT product_id, status FROM entitlements WHERE account_id = \(account.id)", logger) {
                    ownedRows.append((try r.get("product_id"), try Catalog.Entitlement.Status(stored: try r.get("status"))))
                }
                if let deviceID {
                    try await Self.checkDevice(conn, id: deviceID, account: account, logger)
                    for r in try await conn.rows("SELECT product_id, version, status FROM installs WHERE device_id = \(deviceID)", logger) {
                        installed[try r.get("product_id")] = (try r.get("version"), try InstallStatus(stored: try r.get("status")))
                    }
                }
            }
            let owned = ListingRules.owned(ownedRows)
            return products.map { p in
                let inst = installed[p.id]
                return ListedProduct(
                    product: p, status: ListingRules.status(p, owned: owned[p.id], installed: inst, available: available),
                    installedVersion: inst?.0)
            }
        }
    }

    /// Adds or updates the products of a product file from the bundles in `tilesDirectory`
    /// (see `CatalogDatabase.publish`): every bundle is checked before anything is written;
    /// publishes from several places at once take turns (an advisory lock).
    public func publish(_ file: ProductFile, tilesDirectory: String) async throws(CatalogError) -> [PublishResult] {
        let prepared = try ProductPublishing.describe(file, tilesDirectory: tilesDirectory)
        let logger = logger, products = prepared
        return try await transaction { conn in
            try await conn.run("SELECT pg_advisory_xact_lock(\(Self.publishLock))", logger)
            var results = [PublishResult]()
            for p in products { results.append(try await Self.upsert(conn, p, logger)) }
            return results
        }
    }

    /// A number that differs from the previous call's whenever any server committed a write to
    /// the catalog in between: the `catalog_state` counter, moved by every write transaction in
    /// the same transaction (so a reader never sees the new stamp before the new rows). Held in
    /// memory from LISTEN while the listener is connected (no query), else read.
    public func changeStamp() async throws(CatalogError) -> Int {
        if let stamp = changes.stamp { return stamp }
        let logger = logger
        return try await withConnection { conn in
            try await conn.rows("SELECT change_stamp FROM catalog_state WHERE id = 1", logger).first?.get("change_stamp", as: Int.self) ?? 0
        }
    }

    static let publishLock: Int = 0x7472_6169_6C70_7562

    /// Ordered as SQLite orders them (by bytes, whatever the database's collation).
    /// Everyone's products (regions and area products) and `owner`'s bought areas.
    static func products(_ conn: PostgresConnection, visibleTo owner: String? = nil, _ logger: Logger) async throws -> [Product] {
        try await conn.rows(
            """
            SELECT * FROM products WHERE owner IS NULL OR owner = \(owner) ORDER BY category COLLATE "C", title COLLATE "C"
            """, logger
        ).map(Product.init(postgres:))
    }

    static func product(_ conn: PostgresConnection, id: String, _ logger: Logger) async throws -> Product? {
        try await conn.rows("SELECT * FROM products WHERE id = \(id)", logger).first.map(Product.init(postgres:))
    }

    /// One product's upsert (`ProductUpsert`) in PostgreSQL.
    private static func upsert(_ conn: PostgresConnection, _ p: Product, _ logger: Logger) async throws -> PublishResult {
        let before = try await product(conn, id: p.id, logger)
        let other = try await conn.rows("SELECT id FROM products WHERE tileset = \(p.tileset) AND id <> \(p.id)", logger).first
        let u = try ProductUpsert(p, before: before, tilesetOwner: try other?.get("id", as: String.self))
        for c in u.categories {
            try await conn.run(
                """
                INSERT INTO categories(path, name, parent) VALUES (\(c.path), \(c.name), \(c.parent)) ON CONFLICT (path) DO NOTHING
                """, logger)
        }
        let layers = BundleLayer.encode(p.layers)
        try await conn.run(
            """
            INSERT INTO products(\(unescaped: ProductUpsert.columns))
            VALUES (\(p.id), \(p.title), \(p.category), \(p.description), \(p.price.amount), \(p.price.currency), \(p.free),
                \(p.tileset), \(p.bundlePath), \(u.version), \(p.size), \(p.sha256), \(p.minZoom), \(p.maxZoom),
                \(p.bounds.west), \(p.bounds.south), \(p.bounds.east), \(p.bounds.north), \(u.now), \(layers), \(p.kind.rawValue),
                \(p.areaJSON))
            \(unescaped: ProductUpsert.onConflict)
            """, logger)
        try await conn.run(
            """
            INSERT INTO product_versions(product_id, version, sha256, size, published_at)
            VALUES (\(p.id), \(u.version), \(p.sha256), \(p.size), \(u.now)) ON CONFLICT DO NOTHING
            """, logger)
        return u.result
    }
}

extension Product {
    /// A product from a `products` row of the PostgreSQL catalog.
    init(postgres row: PostgresRandomAccessRow) throws {
        self.init(
            id: try row.get("id"), title: try row.get("title"), category: try row.get("category"),
            description: try row.get("description"),
            price: Catalog.Price(amount: try row.get("price_amount"), currency: try row.get("price_currency")),
            tileset: try row.get("tileset"), bundlePath: try row.get("bundle_path"), version: try row.get("version"),
            size: try row.get("size"), sha256: try row.get("sha256"), minZoom: try row.get("min_zoom"),
            maxZoom: try row.get("max_zoom"),
            bounds: GeoBounds(
                west: try row.get("west"), south: try row.get("south"), east: try row.get("east"),
                north: try row.get("north")),
            publishedAt: Date(timeIntervalSince1970: try row.get("published_at")),
            layers: BundleLayer.decode(metadata: [BundleLayer.metadataKey: try row.get("layers_json")]) ?? [])
        free = try row.get("free")
        setArea(kind: try row.get("kind"), owner: try row.get("owner"), json: try row.get("area_json"))
    }
}
