import Foundation
import RegionManager
import Synchronization
import TrailMapAPI

/// A stand-in for the store API over a real loopback socket: one product whose bundle is `route`,
/// its status settable, and a log of the requests (method and path).
final class StubStore: Sendable {
    let route: BundleRoute
    let status = Mutex(ProductStatus.purchased)
    let version = Mutex(1)
    let log = Mutex<[String]>([])
    let purchases = Mutex(0)
    /// `region`, `area_product` (an area offer: area terms, for sale) or `area` (a bought area).
    let kind = Mutex(ProductKind.region)
    static let productId = "com.test.region"

    init(route: BundleRoute) { self.route = route }

    func product() -> ProductSummary {
        let kind = kind.withLock { $0 }
        return ProductSummary(
            productId: Self.productId, title: "Test Region", category: "States/Test", price: Price(amount: "1.99", currency: "USD"),
            version: version.withLock { $0 }, size: route.size, sha256: route.sha256, minzoom: 0, maxzoom: 4,
            bounds: [-10, -10, 10, 10], tileset: "test", status: status.withLock { $0 }, kind: kind,
            area: kind == .areaProduct ? AreaTerms(maxBytes: 10 << 20, sources: ["test.mbtiles"]) : nil,
            areaOf: kind == .area ? "com.test.areas" : nil)
    }

    func detail() -> ProductDetail {
        ProductDetail(
            summary: product(),
            coverage: Coverage(productId: Self.productId, title: "Test Region", west: -10, south: -10, east: 10, north: 10),
            previewTileURL: "/tiles/test/0/0/0.png", downloadURL: "/api/v1/downloads/\(Self.productId)",
            tileJSONURL: "/tiles/test.json", publishedAt: "2026-11-22T01:02:03Z")
    }

    /// A JSON answer of a TrailMapAPI body, as the server encodes it.
    static func json(_ status: Int, _ body: some Encodable) -> TestHTTPServer.Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return .json(status, String(decoding: (try? encoder.encode(body)) ?? Data(), as: UTF8.self))
    }

    func respond(_ request: TestHTTPServer.Request) -> TestHTTPServer.Response {
        log.withLock { $0.append("\(request.method) \(request.path)") }
        let path = request.path.split(separator: "?").first.map(String.init) ?? request.path
        switch (request.method, path) {
        case ("GET", "/api/v1/catalog"):
            return Self.json(200, CatalogListing(categories: [], products: [product()]))
        case ("GET", "/api/v1/catalog/\(Self.productId)"):
            return Self.json(200, detail())
        case ("GET", "/api/v1/downloads/\(Self.productId)"):
            return route.respond(request)
        case ("PUT", "/api/v1/devices/dev-1/installs/\(Self.productId)"):
            return Self.json(200, InstallResult(productId: Self.productId, version: 1))
        case ("DELETE", "/api/v1/devices/dev-1/installs/\(Self.productId)"):
            return TestHTTPServer.Response(status: 204)
        case ("POST", "/api/v1/sandbox/transactions"):
            return Self.json(201, SignedTransaction(signedTransaction: "header.payload.signature"))
        case ("POST", "/api/v1/purchases"):
            let owned = purchases.withLock {
                $0 += 1; return $0 > 1
            }
            return Self.json(
                owned ? 200 : 201,
                PurchaseResult(
                    productId: Self.productId, transactionId: "t1", originalTransactionId: "t1",
                    alreadyOwned: owned, downloadURL: "/api/v1/downloads/\(Self.productId)"))
        case ("GET", "/api/v1/entitlements"):
            let revoked = status.withLock { $0 } == .revoked
            return Self.json(
                200,
                EntitlementList(entitlements: [
                    Entitlement(
                        productId: Self.productId, originalTransactionId: "t1", purchasedAt: "2026-11-22T01:02:03Z",
                        status: revoked ? .revoked : .active, revokedReason: revoked ? "refund" : nil,
                        downloadURL: "/api/v1/downloads/\(Self.productId)")
                ]))
        default:
            return Self.json(404, APIErrorBody(code: "not_found", message: "no route"))
        }
    }

    var downloads: Int { log.withLock { $0.filter { $0.hasPrefix("GET /api/v1/downloads/") }.count } }
    func count(_ prefix: String) -> Int { log.withLock { $0.filter { $0.hasPrefix(prefix) }.count } }
}
