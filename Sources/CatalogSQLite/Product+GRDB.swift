import Catalog
import Foundation
import GRDB
import TileGeometry
import TileStore

extension Product {
    /// A product from its row in the SQLite catalog's `products` table.
    init(row: Row) {
        self.init(
            id: row["id"], title: row["title"], category: row["category"], description: row["description"],
            price: Price(amount: row["price_amount"], currency: row["price_currency"]), tileset: row["tileset"],
            bundlePath: row["bundle_path"], version: row["version"], size: row["size"], sha256: row["sha256"],
            minZoom: row["min_zoom"], maxZoom: row["max_zoom"],
            bounds: GeoBounds(west: row["west"], south: row["south"], east: row["east"], north: row["north"]),
            publishedAt: Date(timeIntervalSince1970: row["published_at"]),
            // Checked when published; a value that no longer decodes shows as no levels.
            layers: BundleLayer.decode(metadata: [BundleLayer.metadataKey: row["layers_json"]]) ?? [])
        free = row["free"]
        setArea(kind: row["kind"], owner: row["owner"], json: row["area_json"])
    }
}
