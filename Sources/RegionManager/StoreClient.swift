import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TrailMapAPI

/// The store API of a TrailMap server (docs/api.md): accounts, devices, catalog, purchases, installs.
public struct StoreClient: Sendable {
    /// Server root, e.g. `http://127.0.0.1:8080`.
    public let server: URL
    /// Bearer token of the logged-in account, if any.
    public var token: String?
    public let http: RetryingHTTPClient

    public init(server: URL, token: String? = nil, http: RetryingHTTPClient = RetryingHTTPClient()) {
        self.server = server
        self.token = token
        self.http = http
    }

    // MARK: accounts and devices

    public func register(email: String, password: String) async throws -> AccountCreated {
        try await call("POST", "accounts", body: Credentials(email: email, password: password), auth: false, idempotent: false)
    }

    public func login(email: String, password: String) async throws -> Session {
        try await call("POST", "sessions", body: Credentials(email: email, password: password), auth: false, idempotent: false)
    }

    public func logout() async throws {
        _ = try await raw("DELETE", "sessions", body: nil as Data?, auth: true, idempotent: true)
    }

    public func registerDevice(name: String) async throws -> DeviceRegistration {
        try await call("POST", "devices", body: DeviceRequest(name: name), auth: true, idempotent: false)
    }

    public func reportInstall(deviceId: String, productId: String, version: Int) async throws {
        _ = try await raw(
            "PUT", "devices/\(Self.segment(deviceId))/installs/\(Self.segment(productId))",
            body: try JSONEncoder().encode(InstallRequest(version: version)), auth: true, idempotent: true,
            productId: productId)
    }

    public func removeInstall(deviceId: String, productId: String) async throws {
        _ = try await raw(
            "DELETE", "devices/\(Self.segment(deviceId))/installs/\(Self.segment(productId))",
            body: nil as Data?, auth: true, idempotent: true, productId: productId)
    }

    // MARK: catalog

    /// The catalog; statuses are this device's when logged in with a device id.
    /// Every product's id and file name are checked (`unsafeName`) before any becomes a path.
    public func catalog(deviceId: String?) async throws -> CatalogListing {
        let listing: CatalogListing = try await call(
            "GET", "catalog" + Self.deviceQuery(deviceId), body: nil as Data?,
            auth: token != nil, idempotent: true)
        for p in listing.products { try ServerInput.check(p) }
        return listing
    }

    public func product(_ productId: String, deviceId: String?) async throws -> ProductDetail {
        let detail: ProductDetail = try await call(
            "GET", "catalog/\(Self.segment(productId))" + Self.deviceQuery(deviceId),
            body: nil as Data?, auth: token != nil, idempotent: true, productId: productId)
        try ServerInput.check(detail.summary)
        return detail
    }

    /// How to get the published version of a product from `fromVersion`: patches beside the full size.
    public func productUpdate(_ productId: String, from fromVersion: Int) async throws -> ProductUpdate {
        let update: ProductUpdate = try await call(
            "GET", "updates/\(Self.segment(productId))/\(fromVersion)", body: nil as Data?,
            auth: true, idempotent: true, productId: productId)
        try ServerInput.check(update)
        return update
    }

    /// A server path the API gave (`/api/v1/...`), on the server's own origin.
    public func resolve(_ path: String) -> URL? {
        guard let url = URL(string: path, relativeTo: server)?.absoluteURL, Self.sameOrigin(url, server) else { return nil }
        return url
    }

    // MARK: purchases

    public func entitlements() async throws -> [Entitlement] {
        let list: EntitlementList = try await call("GET", "entitlements", body: nil as Data?, auth: true, idempotent: true)
        for e in list.entitlements { try ServerInput.name(e.productId, "product id") }
        return list.entitlements
    }

    /// The products installed on any of the account's devices.
    public func accountInstalls() async throws -> [String] {
        let list: AccountInstalls = try await call("GET", "installs", body: nil as Data?, auth: true, idempotent: true)
        for id in list.productIds { try ServerInput.name(id, "product id") }
        return list.productIds
    }

    public func purchase(signedTransaction: String) async throws -> PurchaseResult {
        try await call(
            "POST", "purchases", body: SignedTransaction(signedTransaction: signedTransaction), auth: true,
            idempotent: true)
    }

    /// The sandbox store's signed transaction for a purchase (what StoreKit hands the app).
    public func sandboxTransaction(productId: String) async throws -> String {
        let t: SignedTransaction = try await call(
            "POST", "sandbox/transactions", body: SandboxPurchaseRequest(productId: productId),
            auth: true, idempotent: false, productId: productId)
        return t.signedTransaction
    }

    /// The sandbox store's signed notification (what Apple would post) for one of the account's transactions.
    public func sandboxNotification(type: String, transactionId: String) async throws -> String {
        let p: SignedPayload = try await call(
            "POST", "sandbox/notifications",
            body: SandboxNotificationRequest(notificationType: type, transactionId: transactionId),
            auth: true, idempotent: false)
        return p.signedPayload
    }

    public func postNotification(signedPayload: String) async throws {
        _ = try await raw(
            "POST", "store/notifications", body: try JSONEncoder().encode(SignedPayload(signedPayload: signedPayload)),
            auth: false, idempotent: true)
    }

    /// Absolute URL of a product's bundle download: the server's advertised URL (relative, or
    /// absolute on the server's own origin), else the API's own path. The account's token goes
    /// with every chunk, so an advertised URL on any other origin (scheme, host, port) is ignored.
    public func downloadURL(_ productId: String, advertised: String? = nil) -> URL {
        if let advertised, let url = URL(string: advertised, relativeTo: server)?.absoluteURL, Self.sameOrigin(url, server) {
            return url
        }
        return api("downloads/\(Self.segment(productId))")
    }

    /// Same scheme, host and port (default ports filled in).
    static func sameOrigin(_ a: URL, _ b: URL) -> Bool {
        func origin(_ u: URL) -> (String, String, Int)? {
            guard let scheme = u.scheme?.lowercased(), let host = u.host?.lowercased() else { return nil }
            return (scheme, host, u.port ?? (scheme == "https" ? 443 : scheme == "http" ? 80 : -1))
        }
        guard let x = origin(a), let y = origin(b) else { return false }
        return x == y
    }

    // MARK: plumbing

    func api(_ path: String) -> URL {
        let base = server.absoluteString.hasSuffix("/") ? String(server.absoluteString.dropLast()) : server.absoluteString
        return URL(string: base + "/api/v1/" + path) ?? server
    }

    static func segment(_ s: String) -> String {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "/?#")
        return s.addingPercentEncoding(withAllowedCharacters: allowed) ?? s
    }

    static func deviceQuery(_ deviceId: String?) -> String {
        guard let deviceId, !deviceId.isEmpty else { return "" }
        var allowed = CharacterSet.urlQueryAllowed
        allowed.remove(charactersIn: "&=+#?")
        return "?device=" + (deviceId.addingPercentEncoding(withAllowedCharacters: allowed) ?? deviceId)
    }

    func call<Body: Encodable, Answer: Decodable>(
        _ method: String, _ path: String, body: Body?, auth: Bool, idempotent: Bool, productId: String? = nil,
        context: ErrorContext = ErrorContext()
    ) async throws -> Answer {
        let data: Data? = try body.map { try ($0 as? Data) ?? JSONEncoder().encode($0) }
        var context = context
        context.productId = context.productId ?? productId
        let reply = try await raw(method, path, body: data, auth: auth, idempotent: idempotent, context: context)
        do {
            return try JSONDecoder().decode(Answer.self, from: reply.body)
        } catch {
            throw RegionManagerError.invalidResponse("\(method) /api/v1/\(path): \(error)")
        }
    }

    func raw(
        _ method: String, _ path: String, body: Data?, auth: Bool, idempotent: Bool,
        productId: String? = nil
    ) async throws -> HTTPReply {
        try await raw(method, path, body: body, auth: auth, idempotent: idempotent, context: ErrorContext(productId: productId))
    }

    func raw(
        _ method: String, _ path: String, body: Data?, auth: Bool, idempotent: Bool,
        context: ErrorContext
    ) async throws -> HTTPReply {
        var request = URLRequest(url: api(path))
        request.httpMethod = method
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        if let body {
            request.httpBody = body
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        if auth {
            guard let token else { throw RegionManagerError.notLoggedIn(server: server.absoluteString) }
            request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        }
        let reply = try await http.send(request, idempotent: idempotent)
        guard (200..<300).contains(reply.status) else {
            throw Self.error(for: reply, server: server.absoluteString, context: context)
        }
        return reply
    }

    /// Maps a 4xx answer and its `{"error":{"code","message"}}` body to a typed error.
    static func error(for reply: HTTPReply, server: String, productId: String?) -> RegionManagerError {
        error(for: reply, server: server, context: ErrorContext(productId: productId))
    }

    /// Maps a 4xx answer and its `{"error":{"code","message",...}}` body to a typed error; `context`
    /// says what the request was about (for the message).
    static func error(for reply: HTTPReply, server: String, context: ErrorContext) -> RegionManagerError {
        let parsed = try? JSONDecoder().decode(APIErrorBody.self, from: reply.body)
        let code = parsed?.error.code ?? "http_\(reply.status)"
        let message = parsed?.error.message ?? RetryingHTTPClient.errorMessage(reply.body)
        if let parsed, let areaError = areaError(parsed.error, context: context) { return areaError }
        let productId = context.productId
        let id = productId ?? "this region"
        switch (reply.status, code) {
        case (401, "invalid_credentials"): return .wrongCredentials(server: server)
        case (401, _): return .notLoggedIn(server: server)
        case (_, "unknown_product"): return .unknownProduct(id)
        case (_, "not_entitled"): return .notEntitled(id)
        case (_, "revoked"): return .revoked(id)
        case (404, _) where productId != nil: return .unknownProduct(id)
        default:
            if reply.status >= 500 { return .serverFailure(status: reply.status, attempts: 1, message: message) }
            return .rejected(status: reply.status, code: code, message: message)
        }
    }
}
