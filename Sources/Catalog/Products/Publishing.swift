import Essentials
import Foundation
import TrailMapAPI
import GRDB
import TileGeometry
import TileStore

/// What one publish did to one product.
public struct PublishResult: Sendable, Equatable {
    public enum Change: String, Sendable { case added, updated, newVersion = "new version", unchanged }
    public var productId: String
    public var version: Int
    public var change: Change
    public var size: Int64
    public var sha256: String

    /// Memberwise, for the catalog backends in other modules of the package.
    package init(productId: String, version: Int, change: Change, size: Int64, sha256: String) {
        self.productId = productId
        self.version = version
        self.change = change
        self.size = size
        self.sha256 = sha256
    }
}

extension CatalogDatabase {
    /// Adds or updates the products of a product file from the bundles in `tilesDirectory`.
    /// A bundle whose SHA-256 differs from the published one becomes a new product version.
    /// Every bundle is checked before anything is written: one bad bundle publishes nothing.
    public func publish(_ file: ProductFile, tilesDirectory: String) throws(CatalogError) -> [PublishResult] {
        let prepared = try Self.describe(file, tilesDirectory: tilesDirectory)
        return try write { db in
            try prepared.map { p in try Self.upsert(db, p) }
        }
    }

    /// Each entry of a product file as a product, from its bundle (a region) or its sources (an area product).
    package static func describe(_ file: ProductFile, tilesDirectory: String) throws(CatalogError) -> [Product] {
        var prepared = [Product]()
        for e in file.products {
            if let area = e.area {
                prepared.append(try AreaPublishing.describe(entry: e, offer: area, tilesDirectory: tilesDirectory))
            } else if let bundle = e.bundle {
                prepared.append(try describeBundle(entry: e, path: (tilesDirectory as NSString).appendingPathComponent(bundle)))
            }
        }
        return prepared
    }

    /// Reads size, SHA-256, bounds, zoom range and levels of detail from a bundle.
    package static func describeBundle(entry e: ProductFile.Entry, path: String) throws(CatalogError) -> Product {
        let (pairs, meta, zooms) = try readBundle(path)
        guard let layers = BundleLayer.decode(metadata: pairs) else {
            throw .bundle(path: path, reason: BundleLayer.problem(metadata: pairs) ?? "invalid \(BundleLayer.metadataKey)")
        }
        let (size, sha) = try fileDigest(path)
        let tileset = String((path as NSString).lastPathComponent.dropLast(".mbtiles".count))
        return Product(
            id: e.productId, title: e.title, category: e.categoryPath, description: e.description ?? "",
            price: e.price, tileset: tileset, bundlePath: (path as NSString).standardizingPath,
            version: 1, size: size, sha256: sha, minZoom: zooms.lowerBound, maxZoom: zooms.upperBound,
            bounds: meta.bounds, layers: layers)
    }

    /// A bundle's metadata rows, parsed metadata and zoom range (the metadata's, else its tiles'),
    /// checked: it opens, holds tiles and has valid bounds.
    static func readBundle(
        _ path: String
    ) throws(CatalogError) -> (pairs: [String: String], metadata: BundleMetadata, zooms: ClosedRange<Int>) {
        let pairs: [String: String]
        let levels: [ZoomLevelSummary]
        do {
            let reader = try BundleReader(path: path)
            pairs = try reader.metadataPairs()
            levels = try reader.zoomLevels()
        } catch { throw .bundle(path: path, reason: "\(error)") }
        var problems = [String]()
        let meta = BundleMetadata(pairs: pairs, problems: &problems)
        guard let lo = levels.first?.zoom, let hi = levels.last?.zoom else { throw .bundle(path: path, reason: "it holds no tiles") }
        guard pairs["bounds"] != nil, meta.bounds.isValid else { throw .bundle(path: path, reason: "no valid bounds in its metadata") }
        let low = pairs["minzoom"] == nil ? lo : meta.minZoom, high = pairs["maxzoom"] == nil ? hi : meta.maxZoom
        return (pairs, meta, min(low, high)...max(low, high))
    }

    /// Size and SHA-256 (hex) of a file, read in 1 MiB chunks.
    public static func fileDigest(_ path: String) throws(CatalogError) -> (Int64, String) {
        do { return try FileSHA256.digest(path: path) } catch { throw .bundle(path: path, reason: error.description) }
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
