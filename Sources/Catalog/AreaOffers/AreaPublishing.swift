import Crypto
import Foundation
import TrailMapAPI
import TileGeometry
import TileStore

/// Publishing an area product: its coverage and zoom range come from the bundles it cuts from.
enum AreaPublishing {
    /// The area product of a product-file entry. Every source bundle must open, hold tiles and
    /// valid bounds, and all must share one tile format. Its size is the cap; its SHA-256 is the
    /// terms' (a change of terms is a new version).
    package static func describe(entry e: ProductFile.Entry, offer: AreaOffer, tilesDirectory: String) throws(CatalogError) -> Product {
        var bounds: GeoBounds?
        var zooms: ClosedRange<Int>?
        var format: String?
        for name in offer.from {
            let path = (tilesDirectory as NSString).appendingPathComponent(name)
            let (pairs, meta, range) = try ProductPublishing.readBundle(path)
            let f = pairs["format"] ?? "png"
            if let format, format != f {
                throw .productFile(
                    path: path, reason: "area product \(e.productId): its bundles hold \(format) and \(f) tiles; use bundles of one format")
            }
            format = f
            bounds = bounds?.union(meta.bounds) ?? meta.bounds
            zooms = zooms.map { min($0.lowerBound, range.lowerBound)...max($0.upperBound, range.upperBound) } ?? range
        }
        guard let bounds, let zooms else {
            throw .productFile(path: tilesDirectory, reason: "area product \(e.productId) lists no bundles")
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let terms = (try? encoder.encode(offer)) ?? Data()
        let sha = SHA256.hash(data: Data("trailmap-area-terms-1".utf8) + terms).map { String(format: "%02x", $0) }.joined()
        var p = Product(
            id: e.productId, title: e.title, category: e.categoryPath, description: e.description ?? "", price: e.price,
            tileset: e.productId, bundlePath: "", version: 1, size: offer.maxBytes, sha256: sha,
            minZoom: zooms.lowerBound, maxZoom: zooms.upperBound, bounds: bounds)
        p.kind = .areaProduct
        p.areaOffer = offer
        return p
    }
}
