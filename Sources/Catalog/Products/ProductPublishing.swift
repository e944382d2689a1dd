import Essentials
import Foundation
import TileGeometry
import TileStore

/// What publishing reads from the bundles, before any backend writes a row: each product-file
/// entry as a product, checked (the bundle opens, holds tiles and valid bounds; its levels of
/// detail decode). Every catalog backend publishes what this describes.
package enum ProductPublishing {
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
    static func fileDigest(_ path: String) throws(CatalogError) -> (Int64, String) {
        do { return try FileSHA256.digest(path: path) } catch { throw .bundle(path: path, reason: error.description) }
    }
}
