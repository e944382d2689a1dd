import ArgumentParser
import Catalog
import Foundation
import Logging

/// `trailmap catalog ...`: the store catalog database.
struct CatalogCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "catalog",
        abstract: "Publish region bundles as store products and look at the catalog.",
        subcommands: [PublishCommand.self, CatalogListCommand.self, RevokeTileTokensCommand.self]
    )

    static let defaultDatabase = "Catalog/catalog.sqlite"
}

/// `trailmap catalog publish`: adds or updates products from a product file and the bundles.
struct PublishCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "publish",
        abstract: "Add or update products from a product file; size, SHA-256, bounds and zooms come from the bundles.")

    @Option(name: .long, help: "The product file (see README).") var products: String = "Catalog/products.json"
    @Option(name: .long, help: "Folder of the bundles the product file names.") var tiles: String = "Tiles"
    @Option(name: .long, help: "The catalog (created if missing): \(CatalogLocation.help).") var catalog: String = CatalogCommand.defaultDatabase
    @OptionGroup var global: GlobalOptions

    func validate() throws { _ = try CatalogLocation(catalog) }

    func run() async throws {
        let file = try ProductFile.load(path: products)
        let location = try CatalogLocation(catalog)
        let db = try await location.open(logger: global.logger("trailmap.catalog"))
        defer { CatalogLocation.close(db) }
        let results = try await db.publish(file, tilesDirectory: tiles)
        guard !global.quiet else { return }
        for r in results {
            print("\(r.productId): \(r.change.rawValue), version \(r.version), \(ByteSize.format(Int(r.size))), sha256 \(r.sha256.prefix(12))…")
        }
        print("published \(results.count) products to \(location)")
    }
}

/// `trailmap catalog list`: the published products.
struct CatalogListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List the published products.")

    @Option(name: .long, help: "The catalog: \(CatalogLocation.help).") var catalog: String = CatalogCommand.defaultDatabase
    @Flag(name: .long, help: "Print JSON.") var json = false

    /// One product in `--json`.
    struct Row: Encodable {
        var productId: String, title: String, category: String, price: String, currency: String
        var version: Int, size: Int64, sha256: String, tileset: String
    }

    func validate() throws { _ = try CatalogLocation(catalog) }

    func run() async throws {
        let location = try CatalogLocation(catalog)
        guard location.exists else {
            throw ValidationError("no catalog at \(location): run `trailmap catalog publish` first")
        }
        let db = try await location.open(logger: Logger(label: "trailmap.catalog"))
        defer { CatalogLocation.close(db) }
        let products = try await db.products()
        if json {
            let rows = products.map { p in
                Row(productId: p.id, title: p.title, category: p.category, price: p.price.amount, currency: p.price.currency,
                    version: p.version, size: p.size, sha256: p.sha256, tileset: p.tileset)
            }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            let data = try encoder.encode(rows)
            print(String(decoding: data, as: UTF8.self))
            return
        }
        for p in products {
            let price = p.free ? "free" : "\(p.price.amount) \(p.price.currency)"
            print("\(p.id)  \(p.title)  [\(p.category)]  \(price)  v\(p.version)  \(ByteSize.format(Int(p.size)))")
        }
    }
}
