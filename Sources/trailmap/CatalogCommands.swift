import BundlePatch
import ArgumentParser
import Catalog
import Foundation
import Logging
import TrailMapAPI

/// `trailmap catalog ...`: the store catalog database.
struct CatalogCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "catalog",
        abstract: "Publish region bundles as store products and look at the catalog.",
        subcommands: [PublishCommand.self, CatalogListCommand.self, RevokeTileTokensCommand.self, PlacesCommand.self]
    )

    static let defaultDatabase = "Catalog/catalog.sqlite"
}

/// `trailmap catalog publish`: adds or updates products from a product file and the bundles.
struct PublishCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "publish",
        abstract: "Add or update products from a product file; size, SHA-256, bounds and zooms come from the bundles.")

    @Option(name: .long, help: "The product file (JSON; docs/store.md).") var products: String = "Catalog/products.json"
    @Option(name: .long, help: "Folder of the bundles the product file names.") var tiles: String = "Tiles"
    @Option(name: .long, help: "The catalog (created if missing): \(CatalogLocation.help).") var catalog: String = CatalogCommand
        .defaultDatabase
    @Option(name: .long, help: "Folder of the patches between versions (default TILES/.trailmap-patches; the server reads the same).")
    var patches: String?
    @Option(name: .long, help: "Versions of each product kept as indexes to make patches from.")
    var keepVersions: Int = 3
    @Flag(name: .long, help: "Print JSON.") var json = false
    @OptionGroup var global: GlobalOptions

    func validate() throws {
        _ = try CatalogLocation(catalog)
        if keepVersions < 1 { throw ValidationError("--keep-versions must be at least 1") }
    }

    func run() async throws {
        let file = try ProductFile.load(path: products)
        let location = try CatalogLocation(catalog)
        let db = try await location.open(logger: global.logger("trailmap.catalog"))
        defer { CatalogLocation.close(db) }
        let results = try await db.publish(file, tilesDirectory: tiles)
        // Each published version is indexed, and patches are made to it from the kept earlier ones.
        let store = PatchStore(root: patches ?? PatchStoreLocation.defaultRoot(tiles: tiles), keepVersions: keepVersions)
        var made = [String: [StoredPatch]]()
        var areaProducts = Set<String>()
        for r in results {
            guard let p = try await db.product(id: r.productId) else { continue }
            // Area products have no bundle of their own: nothing to index.
            guard p.kind == .region else { areaProducts.insert(p.id); continue }
            made[r.productId] = try store.record(productId: r.productId, version: r.version, bundle: p.bundlePath, sha256: r.sha256).made
        }
        if json {
            return try JSONOutput.print(
                CommandReports.Publish(
                    catalog: "\(location)",
                    products: results.map { r in
                        CommandReports.Publish.Product(
                            productId: r.productId, change: r.change.rawValue, version: r.version,
                            kind: areaProducts.contains(r.productId) ? "area" : "region",
                            size: r.size, sha256: r.sha256,
                            patches: (made[r.productId] ?? []).map {
                                .init(fromVersion: $0.fromVersion, toVersion: $0.toVersion, bytes: $0.size)
                            })
                    }))
        }
        guard !global.quiet else { return }
        for r in results {
            let patches = (made[r.productId] ?? []).map { "\($0.fromVersion)→\($0.toVersion) \(ByteSize.format(Int($0.size)))" }
            if areaProducts.contains(r.productId) {
                print(
                    """
                    \(r.productId): \(r.change.rawValue), version \(r.version), area product: areas of up to \
                    \(ByteSize.format(Int(r.size)))
                    """
                )
                continue
            }
            print(
                """
                \(r.productId): \(r.change.rawValue), version \(r.version), \(ByteSize.format(Int(r.size))), sha256 \
                \(r.sha256.prefix(12))…
                """
                    + (patches.isEmpty ? "" : "; patches \(patches.joined(separator: ", "))"))
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
            throw CommandFailure("no catalog at \(location): run `trailmap catalog publish` first")
        }
        let db = try await location.open(logger: Logger(label: "trailmap.catalog"))
        defer { CatalogLocation.close(db) }
        let products = try await db.products()
        if json {
            let rows = products.map { p in
                Row(
                    productId: p.id, title: p.title, category: p.category, price: p.price.amount, currency: p.price.currency,
                    version: p.version, size: p.size, sha256: p.sha256, tileset: p.tileset)
            }
            try JSONOutput.print(rows)
            return
        }
        for p in products {
            let price = p.free ? "free" : "\(p.price.amount) \(p.price.currency)"
            print("\(p.id)  \(p.title)  [\(p.category)]  \(price)  v\(p.version)  \(ByteSize.format(Int(p.size)))")
        }
    }
}
