import Catalog
import Foundation

/// What `bundle export --pmtiles` says about who can read the archive: it has no access control
/// once uploaded, which a bundle sold in the store must not have.
enum PaidBundleNote {
    /// Without a catalog: every archive gets the general note.
    static let general =
        "note: a PMTiles archive has no access control: once uploaded, anyone with its URL can read "
        + "every tile. Do not upload a bundle you sell (the server checks each buyer; object storage and CDNs do not)."

    /// The products of `store` that sell the bundle at `file` (not free): a region whose bundle is
    /// the file, an area offer cutting from it, a bought area cut into it.
    static func sellers(of file: String, in store: any CatalogStore) async throws -> [Product] {
        let name = (file as NSString).lastPathComponent
        let stem = name.hasSuffix(".mbtiles") ? String(name.dropLast(".mbtiles".count)) : name
        return try await store.products().filter { p in
            guard !p.free else { return false }
            return p.tileset == stem || (p.bundlePath as NSString).lastPathComponent == name || (p.areaOffer?.from.contains(name) ?? false)
        }
    }

    /// The line for the sellers found in a catalog: a warning naming them, or nil when none sells it.
    static func line(file: String, sellers: [Product]) -> String? {
        guard !sellers.isEmpty else { return nil }
        let names = sellers.map { "\($0.id) (\($0.price.amount) \($0.price.currency))" }.joined(separator: ", ")
        return "warning: \(file) is sold in the store as \(names). A PMTiles archive has no access control: once uploaded, "
            + "anyone with its URL can read every tile for free. Do not upload it."
    }
}
