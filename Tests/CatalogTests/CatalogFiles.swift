import Catalog
import Foundation
import TileGeometry
import TileStore
import TrailMapTestSupport

/// A temporary folder with small real bundles and product files, for publishing.
struct CatalogFiles {
    let dir = TemporaryDirectory()
    static let colorado = GeoBounds(west: -109.06, south: 36.99, east: -102.04, north: 41.0)

    /// Writes `NAME.mbtiles` with a few tiles whose bytes depend on `seed` (so the SHA-256 does too).
    @discardableResult
    func bundle(
        _ name: String, seed: UInt8 = 0, bounds: GeoBounds = CatalogFiles.colorado, zooms: ClosedRange<Int> = 3...5,
        extra: [String: String] = [:]
    ) throws -> String {
        let path = dir.file("\(name).mbtiles")
        try? FileManager.default.removeItem(atPath: path)
        var batch = [(tile: TileID, data: [UInt8])]()
        for z in zooms {
            for t in TileRange(bounds: bounds, zoom: z).prefix(4) {
                batch.append((t, [seed, UInt8(z), UInt8(t.x & 255), UInt8(t.y & 255)]))
            }
        }
        var meta = BundleMetadata(name: name, bounds: bounds, minZoom: zooms.lowerBound, maxZoom: zooms.upperBound)
        meta.extra = extra
        return try TestBundle.write(batch, to: path, metadata: meta)
    }

    /// The three levels of detail of a quad-map bundle, lower first.
    static let quadLayers = [
        BundleLayer(name: "quads-30", title: "30-minute maps", kind: .series, minzoom: 8, maxzoom: 11, sources: ["q30-a.tif", "q30-b.tif"]),
        BundleLayer(name: "quads-7.5", title: "7.5-minute maps", kind: .series, minzoom: 12, maxzoom: 15, sources: ["q75-1.tif"]),
        BundleLayer(name: "trails", title: "Trails", kind: .overlay, minzoom: 8, maxzoom: 15, sources: ["trails.tif"])
    ]
    static let quadSummary = "30-minute maps, zooms 8–11; 7.5-minute maps, zooms 12–15; Trails overlay, zooms 8–15"

    /// Writes `NAME.mbtiles` at zooms 8...15 recording `layers` as its levels of detail.
    @discardableResult
    func layeredBundle(_ name: String, seed: UInt8 = 0, layers: [BundleLayer] = CatalogFiles.quadLayers) throws -> String {
        try bundle(name, seed: seed, zooms: 8...15, extra: [BundleLayer.metadataKey: BundleLayer.encode(layers)])
    }

    /// Writes a product file and returns its path.
    @discardableResult
    func productFile(_ entries: [[String: Any]], name: String = "products.json") throws -> String {
        let path = dir.file(name)
        try JSONSerialization.data(withJSONObject: ["products": entries]).write(to: URL(fileURLWithPath: path))
        return path
    }

    static func entry(_ id: String, bundle: String, price: String = "4.99", category: String = "States/Colorado") -> [String: Any] {
        [
            "productId": id, "title": id.capitalized, "category": category, "description": "Trails of \(id)",
            "price": ["amount": price, "currency": "USD"], "bundle": bundle
        ]
    }

    /// The sample store's bundles and product file (`products.json`): a free base map and two paid regions.
    func writeSample() throws -> ProductFile {
        try bundle("world", seed: 1, bounds: .world, zooms: 0...2)
        try bundle("colorado", seed: 2)
        try bundle("rocky", seed: 3, bounds: GeoBounds(west: -105.9, south: 40.15, east: -105.45, north: 40.55), zooms: 8...9)
        return try ProductFile.load(
            path: try productFile([
                Self.entry("base", bundle: "world.mbtiles", price: "0", category: "Base maps"),
                Self.entry("colorado", bundle: "colorado.mbtiles"),
                Self.entry("rocky", bundle: "rocky.mbtiles", price: "2.99", category: "National Parks/Rocky Mountain")
            ]))
    }
}
