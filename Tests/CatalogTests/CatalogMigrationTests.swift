@testable import Catalog
@testable import CatalogSQLite
import Foundation
import GRDB
import Testing
import TileStore
import TrailMapTestSupport

/// A catalog database made by an earlier TrailMap upgrades when it is opened.
@Suite struct CatalogMigrationTests {
    @Test func aCatalogMadeBeforeLevelsOfDetailUpgrades() throws {
        let f = CatalogFiles()
        let path = f.dir.file("old-catalog.sqlite")
        // The schema as it was before levels of detail (migration v1 only), with a product in it.
        let old = try DatabaseQueue(path: path)
        try CatalogSchema.migrator.migrate(old, upTo: "v1")
        try old.write { db in
            try db.execute(sql: "INSERT INTO categories(path, name, parent) VALUES ('States', 'States', NULL)")
            try db.execute(
                sql: """
                    INSERT INTO products(id, title, category, description, price_amount, price_currency, free, tileset,
                        bundle_path, version, size, sha256, min_zoom, max_zoom, west, south, east, north, published_at)
                    VALUES ('quads', 'Quads', 'States', '', '4.99', 'USD', 0, 'quads', ?, 1, 10, 'aa', 8, 15, -109, 37, -102, 41, 0)
                    """, arguments: [f.dir.file("quads.mbtiles")])
        }
        #expect(try old.read { try $0.columns(in: "products") }.map(\.name).contains("layers_json") == false)
        try old.close()

        let db = try CatalogDatabase(path: path)
        let columns = try db.read { try $0.columns(in: "products") }
        #expect(columns.contains { $0.name == "layers_json" && $0.isNotNull && $0.defaultValueSQL == "'[]'" })
        let kept = try #require(try db.product(id: "quads"))
        #expect(kept.title == "Quads" && kept.version == 1 && kept.layers == [])

        // Publishing the product's bundle records its levels in the upgraded database.
        try f.layeredBundle("quads")
        let file = try f.productFile([CatalogFiles.entry("quads", bundle: "quads.mbtiles", category: "States")])
        #expect(try db.publish(try ProductFile.load(path: file), tilesDirectory: f.dir.path).map(\.change) == [.newVersion])
        let published = try #require(try db.product(id: "quads"))
        #expect(published.version == 2 && published.layers == CatalogFiles.quadLayers)
    }
}
