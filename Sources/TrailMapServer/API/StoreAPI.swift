import Catalog
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore

/// The store API under `/api/v1/` (docs/api.md): accounts, devices, catalog, purchases,
/// entitlements, downloads, tile tokens, store notifications and the sandbox store.
/// It translates HTTP to `CatalogDatabase` calls and back; the catalog knows nothing of HTTP.
struct StoreAPI: Sendable {
    let settings: StoreSettings
    let files = FileIO()
    let anonymousCatalog = CatalogResponseCache()
    /// Checks that a bundle still holds its published bytes before it is downloaded.
    let bundleIntegrity = BundleIntegrity()
    let logger: Logger

    var catalog: CatalogDatabase { settings.catalog }
    var tileTokens: TileTokens { settings.tileTokens }

    /// The tile URL extension of a tileset (its format's; `png` for a tileset not being served).
    let tileExtension: @Sendable (String) -> String

    init(settings: StoreSettings, logger: Logger, tileExtension: @escaping @Sendable (String) -> String = { _ in "png" }) {
        self.settings = settings
        self.logger = logger
        self.tileExtension = tileExtension
    }

    /// Answers a request whose path starts with `/api/v1/`; `parts` are the components after it.
    func respond(_ request: Request, parts: [Substring], context: TrailMapRequestContext, route: inout Route) async throws -> Response {
        do {
            return try await dispatch(request, parts: parts, context: context, route: &route)
        } catch let e as CatalogError {
            throw APIError(e)
        }
    }

    private func dispatch(_ request: Request, parts: [Substring], context: TrailMapRequestContext, route: inout Route) async throws -> Response {
        let m = request.method
        route = .api
        switch (m, parts.count, parts.first ?? "") {
        case (.get, 1, "openapi.json"): return JSONReply.make(OpenAPIDocument.object, request: request)
        case (.post, 1, "accounts"): return try await register(request, from: context.clientAddress)
        case (.post, 1, "sessions"): return try await login(request, from: context.clientAddress)
        case (.delete, 1, "sessions"): return try logout(request)
        case (.post, 1, "devices"): return try await addDevice(request)
        case (.put, 4, "devices") where parts[2] == "installs": return try await install(request, device: parts[1], product: parts[3])
        case (.delete, 4, "devices") where parts[2] == "installs": return try uninstall(request, device: parts[1], product: parts[3])
        case (.get, 1, "catalog"), (.head, 1, "catalog"): return try catalogList(request)
        case (.get, 2, "catalog"), (.head, 2, "catalog"): return try catalogDetail(request, product: parts[1])
        case (.post, 1, "purchases"): return try await purchase(request)
        case (.get, 1, "entitlements"): return try entitlements(request)
        case (.get, 2, "downloads"), (.head, 2, "downloads"):
            route = .download
            return try await download(request, product: parts[1], context: context)
        case (.post, 1, "tile-tokens"): return try await tileToken(request)
        case (.post, 2, "store") where parts[1] == "notifications": return try await notification(request)
        case (.post, 2, "sandbox") where parts[1] == "transactions": return try await sandboxTransaction(request)
        case (.post, 2, "sandbox") where parts[1] == "notifications": return try await sandboxNotification(request)
        default:
            if Self.knownPaths.contains(String(parts.first ?? "")) {
                var e = APIError(.methodNotAllowed, code: "method_not_allowed", message: "\(m) is not allowed on \(request.uri.path.prefix(200))")
                e.headers[.allow] = "GET, HEAD, POST, PUT, DELETE, OPTIONS"
                throw e
            }
            throw APIError.notFound("not_found", "no API route \(request.uri.path.prefix(200)); see /api/v1/openapi.json")
        }
    }

    static let knownPaths: Set<String> = ["openapi.json", "accounts", "sessions", "devices", "catalog", "purchases",
                                          "entitlements", "downloads", "tile-tokens", "store", "sandbox"]

    // MARK: request helpers

    /// The bearer token of the request, or nil.
    static func bearer(_ request: Request) -> String? {
        guard let h = request.headers[.authorization], h.utf8.count < 1024 else { return nil }
        let parts = h.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        return parts[1].trimmingCharacters(in: .whitespaces)
    }

    /// The caller's account; 401 without a live token.
    func account(_ request: Request) throws -> Account {
        guard let token = Self.bearer(request) else { throw APIError(CatalogError.unauthorized) }
        return try catalog.authenticate(token: token)
    }

    /// The caller's account when a token is given (an invalid token is still a 401).
    func optionalAccount(_ request: Request) throws -> Account? {
        Self.bearer(request) == nil ? nil : try account(request)
    }

    /// Decodes a JSON body of at most `settings.maxBodyBytes`.
    func body<T: Decodable>(_ type: T.Type, _ request: Request) async throws -> T {
        if let type = request.headers[.contentType], !type.lowercased().hasPrefix("application/json") {
            throw APIError(.unsupportedMediaType, code: "unsupported_media_type", message: "send JSON (Content-Type: application/json)")
        }
        var request = request
        let buffer: ByteBuffer
        do { buffer = try await request.collectBody(upTo: settings.maxBodyBytes) } catch {
            throw APIError(.contentTooLarge, code: "body_too_large", message: "the request body is larger than \(settings.maxBodyBytes) bytes")
        }
        do { return try JSONDecoder().decode(T.self, from: Data(buffer.readableBytesView)) } catch let DecodingError.keyNotFound(key, _) {
            throw APIError.badRequest("the JSON body needs \"\(key.stringValue)\"")
        } catch let DecodingError.typeMismatch(_, ctx) {
            throw APIError.badRequest("wrong type for \"\(ctx.codingPath.map(\.stringValue).joined(separator: "."))\" in the JSON body")
        } catch {
            throw APIError.badRequest("the body is not the JSON this call expects")
        }
    }

    /// A path component naming a product, checked.
    static func productID(_ s: Substring) throws -> String {
        let id = s.contains("%") ? (s.removingPercentEncoding ?? "") : String(s)
        guard ProductFile.isValidProductID(id) else {
            throw APIError.badRequest("invalid product id: use letters, digits, '.', '_' and '-'")
        }
        return id
    }

    /// `http://host:port` as the client addressed the server.
    static func origin(_ request: Request, fallback: String) -> String {
        if let authority = request.head.authority, !authority.isEmpty, authority.utf8.count < 256,
           authority.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "/") && $0 != UInt8(ascii: "\"") }) {
            return "http://\(authority)"
        }
        return fallback
    }

    static func empty(_ status: HTTPResponse.Status = .noContent) -> Response {
        Response(status: status, headers: [.accessControlAllowOrigin: "*", .cacheControl: "no-store"])
    }
}
