import Catalog
import Foundation
import Hummingbird
import TileGeometry
import TileStore

/// `/catalog`, `/catalog/{productId}` and `/entitlements`.
extension StoreAPI {
    func catalogList(_ request: Request) throws -> Response {
        let account = try optionalAccount(request)
        let device = try deviceParameter(request)
        func build() throws -> [String: Any] {
            let listed = try catalog.listing(account: account, deviceID: device, available: settings.availableProducts)
            return ["categories": try catalog.categoryTree().map(Self.categoryJSON), "products": listed.map(Self.summaryJSON)]
        }
        guard account == nil else { return JSONReply.make(try build(), request: request) }
        // Anonymous listings are the same for everyone until the catalog changes.
        let body = try anonymousCatalog.body(stamp: catalog.changeStamp()) { JSONWriter.bytes(try build()) }
        return JSONReply.make(json: body.json, gzip: body.gzip, request: request)
    }

    func catalogDetail(_ request: Request, product: Substring) throws -> Response {
        let id = try Self.productID(product)
        let account = try optionalAccount(request)
        guard let item = try catalog.listing(account: account, deviceID: deviceParameter(request),
                                             available: settings.availableProducts, only: id).first
        else { throw APIError(CatalogError.unknownProduct(id)) }
        let p = item.product
        var json = Self.summaryJSON(item)
        let base = Self.origin(request, fallback: "")
        let z = min(max(p.minZoom, 0), 22)
        let center = WebMercator.tile(lon: (p.bounds.west + p.bounds.east) / 2, lat: (p.bounds.south + p.bounds.north) / 2, zoom: z)
        json["coverage"] = p.coverageGeoJSON
        json["previewTileURL"] = "\(base)/tiles/\(p.tileset)/\(z)/\(center.x)/\(center.y).\(tileExtension(p.tileset))"
        json["downloadURL"] = "/api/v1/downloads/\(p.id)"
        json["tileJSONURL"] = "\(base)/tiles/\(p.tileset).json"
        json["publishedAt"] = JSONReply.time(p.publishedAt)
        return JSONReply.make(json, request: request)
    }

    func entitlements(_ request: Request) throws -> Response {
        let a = try account(request)
        let products = Dictionary(try catalog.products().map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        let base = Self.origin(request, fallback: "")
        let list: [[String: Any]] = try catalog.entitlements(account: a).map { e in
            var j: [String: Any] = ["productId": e.productId, "originalTransactionId": e.originalTransactionId,
                                    "purchasedAt": JSONReply.time(e.grantedAt), "status": e.status.rawValue,
                                    "downloadURL": "/api/v1/downloads/\(e.productId)"]
            if let r = e.reason { j["revokedReason"] = r }
            if let p = products[e.productId] {
                j["version"] = p.version
                j["size"] = p.size
                j["sha256"] = p.sha256
                j["title"] = p.title
                j["tileset"] = p.tileset
            }
            return j
        }
        return JSONReply.make(["entitlements": list], request: request, cacheControl: "no-store")
    }

    /// The `device` query parameter, checked (its owner is checked by the catalog).
    func deviceParameter(_ request: Request) throws -> String? {
        guard let d = request.uri.queryParameters["device"].map(String.init), !d.isEmpty else { return nil }
        guard d.utf8.count <= 64 else { throw APIError.badRequest("device ids have at most 64 characters") }
        return d
    }

    static func summaryJSON(_ item: ListedProduct) -> [String: Any] {
        let p = item.product
        var j: [String: Any] = [
            "productId": p.id, "title": p.title, "category": p.category, "description": p.description,
            "price": ["amount": p.price.amount, "currency": p.price.currency], "free": p.free, "version": p.version,
            "size": p.size, "sha256": p.sha256, "minzoom": p.minZoom, "maxzoom": p.maxZoom, "tileset": p.tileset,
            "bounds": [p.bounds.west, p.bounds.south, p.bounds.east, p.bounds.north], "status": item.status.rawValue,
            "levels": p.layers.map(levelJSON), "levelsSummary": BundleLayer.summary(p.layers),
        ]
        if let v = item.installedVersion { j["installedVersion"] = v }
        return j
    }

    /// One level of detail as the store shows it (its source files stay private to the bundle).
    static func levelJSON(_ l: BundleLayer) -> [String: Any] {
        ["name": l.name, "title": l.title, "kind": l.kind.rawValue, "minzoom": l.minzoom, "maxzoom": l.maxzoom, "summary": l.summary]
    }

    static func categoryJSON(_ n: CategoryNode) -> [String: Any] {
        ["name": n.name, "path": n.path, "children": n.children.map(categoryJSON)]
    }
}
