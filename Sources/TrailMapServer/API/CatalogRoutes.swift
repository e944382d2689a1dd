import BundlePatch
import Catalog
import Foundation
import Hummingbird
import TileGeometry
import TileStore
import TrailMapAPI

/// `/catalog`, `/catalog/{productId}` and `/entitlements`.
extension StoreAPI {
    func catalogList(_ request: Request) async throws -> Response {
        let account = try await optionalAccount(request)
        let device = try deviceParameter(request)
        let catalog = catalog, available = settings.availableProducts
        func build() async throws -> CatalogListing {
            let listed = try await catalog.listing(account: account, deviceID: device, available: available, only: nil)
            return CatalogListing(categories: try await catalog.categoryTree().map(Self.category), products: listed.map(Self.summary))
        }
        guard account == nil else { return JSONReply.make(try await build(), request: request) }
        // Anonymous listings are the same for everyone until the catalog changes.
        let body = try await anonymousCatalog.body(stamp: await catalog.changeStamp()) { try JSONReply.bytes(try await build()) }
        return JSONReply.make(json: body.json, gzip: body.gzip, request: request)
    }

    func catalogDetail(_ request: Request, product: Substring) async throws -> Response {
        let id = try Self.productID(product)
        let account = try await optionalAccount(request)
        guard
            let item = try await catalog.listing(
                account: account, deviceID: deviceParameter(request),
                available: settings.availableProducts, only: id
            ).first
        else { throw APIError(CatalogError.unknownProduct(id)) }
        let p = item.product
        let base = publicOrigin
        // Area products and bought areas have no tileset of their own: preview the first bundle they cut from.
        var previewTileset = p.tileset
        if let first = p.areaOffer?.tilesets.first {
            previewTileset = first
        } else if let of = p.areaOrigin?.of, let first = try await catalog.product(id: of)?.areaOffer?.tilesets.first {
            previewTileset = first
        }
        let z = min(max(p.minZoom, 0), 22)
        let center = WebMercator.tile(lon: (p.bounds.west + p.bounds.east) / 2, lat: (p.bounds.south + p.bounds.north) / 2, zoom: z)
        let detail = ProductDetail(
            summary: Self.summary(item), coverage: p.coverageGeoJSON,
            previewTileURL: "\(base)/tiles/\(previewTileset)/\(z)/\(center.x)/\(center.y).\(tileExtension(previewTileset))",
            downloadURL: "/api/v1/downloads/\(p.id)", tileJSONURL: "\(base)/tiles/\(previewTileset).json",
            publishedAt: JSONReply.time(p.publishedAt),
            contentHash: settings.patches?.contentHash(p.id, version: p.version, sha256: p.sha256),
            trails: try await trailsSummary(p, account: account))
        return JSONReply.make(detail, request: request)
    }

    func entitlements(_ request: Request) async throws -> Response {
        let a = try await account(request)
        // The account's own areas are products too, listed to it alone.
        let visible = try await catalog.listing(account: a, deviceID: nil, available: nil, only: nil)
        let products = Dictionary(visible.map { ($0.product.id, $0.product) }, uniquingKeysWith: { a, _ in a })
        let list = try await catalog.entitlements(account: a).map { e in
            let p = products[e.productId]
            return TrailMapAPI.Entitlement(
                productId: e.productId, originalTransactionId: e.originalTransactionId, purchasedAt: JSONReply.time(e.grantedAt),
                status: e.status == .active ? .active : .revoked, revokedReason: e.reason,
                downloadURL: "/api/v1/downloads/\(e.productId)",
                version: p?.version, size: p?.size, sha256: p?.sha256, title: p?.title, tileset: p?.tileset)
        }
        return JSONReply.make(EntitlementList(entitlements: list), request: request, cacheControl: "no-store")
    }

    /// The `device` query parameter, checked (its owner is checked by the catalog).
    func deviceParameter(_ request: Request) throws -> String? {
        guard let d = request.uri.queryParameters["device"].map(String.init), !d.isEmpty else { return nil }
        guard d.utf8.count <= 64 else { throw APIError.badRequest("device ids have at most 64 characters") }
        return d
    }

    /// A listed product as the API shows it.
    static func summary(_ item: ListedProduct) -> ProductSummary {
        let p = item.product
        return ProductSummary(
            productId: p.id, title: p.title, category: p.category, description: p.description,
            price: TrailMapAPI.Price(amount: p.price.amount, currency: p.price.currency), free: p.free, version: p.version,
            size: p.size, sha256: p.sha256, minzoom: p.minZoom, maxzoom: p.maxZoom,
            bounds: [p.bounds.west, p.bounds.south, p.bounds.east, p.bounds.north],
            tileset: p.tileset, status: status(item.status), installedVersion: item.installedVersion,
            levels: p.layers.map(level), levelsSummary: BundleLayer.summary(p.layers), kind: p.kind,
            area: p.areaOffer.map { AreaTerms(maxBytes: $0.maxBytes, sources: $0.tilesets) }, areaOf: p.areaOrigin?.of)
    }

    /// The catalog's status of a product as the API names it.
    static func status(_ s: Catalog.ProductStatus) -> TrailMapAPI.ProductStatus {
        switch s {
        case .forSale: .forSale
        case .free: .free
        case .purchased: .purchased
        case .installed: .installed
        case .updateAvailable: .updateAvailable
        case .revoked: .revoked
        case .unavailable: .unavailable
        }
    }

    /// One level of detail as the store shows it (its source files stay private to the bundle).
    static func level(_ l: BundleLayer) -> ProductLevel {
        ProductLevel(name: l.name, title: l.title, kind: l.kind.rawValue, minzoom: l.minzoom, maxzoom: l.maxzoom, summary: l.summary)
    }

    static func category(_ n: CategoryNode) -> TrailMapAPI.Category {
        TrailMapAPI.Category(name: n.name, path: n.path, children: n.children.map(category))
    }
}
