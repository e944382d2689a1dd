import Foundation
import RegionManager
import Synchronization

/// A stand-in for the store API over a real loopback socket: one product whose bundle is `route`,
/// its status settable, and a log of the requests (method and path).
final class StubStore: Sendable {
    let route: BundleRoute
    let status = Mutex(ProductStatus.purchased)
    let version = Mutex(1)
    let log = Mutex<[String]>([])
    let purchases = Mutex(0)
    static let productId = "com.test.region"

    init(route: BundleRoute) { self.route = route }

    func product() -> Product {
        Product(productId: Self.productId, title: "Test Region", category: "States/Test", price: Price(amount: "1.99", currency: "USD"),
                version: version.withLock { $0 }, size: route.size, sha256: route.sha256, bounds: [-10, -10, 10, 10],
                tileset: "test", status: status.withLock { $0 }, downloadURL: "/api/v1/downloads/\(Self.productId)")
    }

    func respond(_ request: TestHTTPServer.Request) -> TestHTTPServer.Response {
        log.withLock { $0.append("\(request.method) \(request.path)") }
        let path = request.path.split(separator: "?").first.map(String.init) ?? request.path
        let encoder = JSONEncoder()
        switch (request.method, path) {
        case ("GET", "/api/v1/catalog"):
            let listing = CatalogListing(categories: [], products: [product()])
            return .json(200, String(decoding: (try? encoder.encode(listing)) ?? Data(), as: UTF8.self))
        case ("GET", "/api/v1/catalog/\(Self.productId)"):
            return .json(200, String(decoding: (try? encoder.encode(product())) ?? Data(), as: UTF8.self))
        case ("GET", "/api/v1/downloads/\(Self.productId)"):
            return route.respond(request)
        case ("PUT", "/api/v1/devices/dev-1/installs/\(Self.productId)"):
            return .json(200, #"{"productId":"\#(Self.productId)","version":1,"status":"installed"}"#)
        case ("DELETE", "/api/v1/devices/dev-1/installs/\(Self.productId)"):
            return TestHTTPServer.Response(status: 204)
        case ("POST", "/api/v1/sandbox/transactions"):
            return .json(201, #"{"signedTransaction":"header.payload.signature"}"#)
        case ("POST", "/api/v1/purchases"):
            let owned = purchases.withLock { $0 += 1; return $0 > 1 }
            return .json(owned ? 200 : 201, #"{"productId":"\#(Self.productId)","transactionId":"t1","originalTransactionId":"t1","alreadyOwned":\#(owned)}"#)
        case ("GET", "/api/v1/entitlements"):
            let s = status.withLock { $0 } == .revoked ? "revoked" : "active"
            return .json(200, #"{"entitlements":[{"productId":"\#(Self.productId)","status":"\#(s)"}]}"#)
        default:
            return .json(404, #"{"error":{"code":"not_found","message":"no route"}}"#)
        }
    }

    var downloads: Int { log.withLock { $0.filter { $0.hasPrefix("GET /api/v1/downloads/") }.count } }
    func count(_ prefix: String) -> Int { log.withLock { $0.filter { $0.hasPrefix(prefix) }.count } }
}
