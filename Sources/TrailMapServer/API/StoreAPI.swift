import Areas
import Catalog
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import Trails

/// The store API under `/api/v1/` (docs/api.md): accounts, devices, catalog, purchases,
/// entitlements, downloads, tile tokens, store notifications and the sandbox store.
/// It translates HTTP to `CatalogStore` calls and back; the catalog knows nothing of HTTP.
struct StoreAPI: Sendable {
    let settings: StoreSettings
    let anonymousCatalog = CatalogResponseCache()
    /// Checks that a bundle still holds its published bytes before it is downloaded.
    let bundleIntegrity = BundleIntegrity()
    let logger: Logger

    var catalog: any CatalogStore { settings.catalog }
    var tileTokens: TileTokens { settings.tileTokens }

    /// The tile URL extension of a tileset (its format's; `png` for a tileset not being served).
    let tileExtension: @Sendable (String) -> String

    /// Quotes and cuts areas from the tiles folder's bundles.
    let areas: AreaQuoting
    /// The published regions' trail indexes.
    let trailShelf: TrailShelf
    /// The operator's place names for trail searches (`trailmap catalog places load`).
    let places: PlaceShelf

    /// The served tilesets (terrain among them), the tiles' access rules, and the terrain's tile memo.
    let registry: TilesetRegistry?
    let access: TileAccess?
    let terrainShelf = TerrainShelf()

    /// The prefix of absolute URLs in answers (the configured public origin), or "" for relative ones.
    let publicOrigin: String

    init(
        settings: StoreSettings, logger: Logger, tilesDirectory: String, publicOrigin: String = "",
        tileExtension: @escaping @Sendable (String) -> String = { _ in "png" },
        registry: TilesetRegistry? = nil, access: TileAccess? = nil
    ) {
        self.settings = settings
        self.registry = registry
        self.access = access
        self.publicOrigin = publicOrigin
        trailShelf = TrailShelf(logger: logger)
        places = PlaceShelf(path: Gazetteer.defaultPath(tilesDirectory: tilesDirectory), logger: logger)
        self.logger = logger
        self.tileExtension = tileExtension
        let integrity = bundleIntegrity
        areas = AreaQuoting(
            catalog: settings.catalog, tilesDirectory: tilesDirectory,
            maxUnboughtBytes: settings.maxUnboughtAreaBytes, fairness: settings.areaQuoteFairness,
            logger: logger
        ) { path, identity, sha256 in
            integrity.prime(path: path, identity: identity, sha256: sha256)
        }
    }

    /// Registers every `/api/v1/` route on `router` (`ServerRoutes`); a registered path answers
    /// its other methods with 405. Catalog errors become JSON answers in `APIErrorMiddleware`.
    func addRoutes(to router: Router<TrailMapRequestContext>, labels: RouteRegistry) {
        var r = RouteTable(
            router: router.group("/api/v1").add(middleware: GrantResetMiddleware(grants: access?.grants)), labels: labels,
            prefix: "/api/v1")
        r.get("/openapi.json", .api) { request, _ in JSONReply.make(OpenAPIDocument.object, request: request) }
        r.on("/accounts", .post, .api) { request, context in try await register(request, from: context.clientAddress) }
        r.on("/sessions", .post, .api) { request, context in try await login(request, from: context.clientAddress) }
        r.on("/sessions", .delete, .api) { request, _ in try await logout(request) }
        r.on("/devices", .post, .api) { request, _ in try await addDevice(request) }
        r.on("/devices/:device/installs/:product", .put, .api) { request, context in
            try await install(request, device: try Self.parameter("device", context), product: try Self.parameter("product", context))
        }
        r.on("/devices/:device/installs/:product", .delete, .api) { request, context in
            try await uninstall(request, device: try Self.parameter("device", context), product: try Self.parameter("product", context))
        }
        r.get("/installs", .api) { request, _ in try await accountInstalls(request) }
        r.get("/catalog", .api) { request, _ in try await catalogList(request) }
        r.get("/catalog/:product", .api) { request, context in
            try await catalogDetail(request, product: try Self.parameter("product", context))
        }
        r.on("/purchases", .post, .api) { request, _ in try await purchase(request) }
        r.get("/entitlements", .api) { request, _ in try await entitlements(request) }
        r.get("/downloads/:product", .download) { request, context in
            try await download(request, product: try Self.parameter("product", context), context: context)
        }
        r.get("/updates/:product/:from", .api) { request, context in
            try await productUpdate(request, product: try Self.parameter("product", context), from: try Self.parameter("from", context))
        }
        r.get("/downloads/:product/patches/:patch", .download) { request, context in
            try await patchDownload(request, product: try Self.parameter("product", context), patch: try Self.parameter("patch", context))
        }
        r.on("/areas/quotes", .post, .api) { request, context in try await areaQuote(request, context: context) }
        r.get("/areas/quotes/:quote", .api) { request, context in
            try await areaQuoteDetail(request, quote: try Self.parameter("quote", context))
        }
        r.on("/areas", .post, .api) { request, _ in try await buyArea(request) }
        r.on("/tile-tokens", .post, .api) { request, _ in try await tileToken(request) }
        r.on("/download-links", .post, .api) { request, _ in try await downloadLink(request) }
        r.get("/trails", .api) { request, _ in try await trailSearch(request) }
        r.get("/trails/:trail", .api) { request, context in try await trailDetail(request, id: try Self.parameter("trail", context)) }
        r.get("/trails/:trail/gpx", .api) { request, context in try await trailGPX(request, id: try Self.parameter("trail", context)) }
        r.get("/trails/:trail/profile", .api) { request, context in
            try await trailProfile(request, id: try Self.parameter("trail", context))
        }
        r.get("/elevation", .api) { request, _ in try await elevation(request) }
        r.on("/profile", .post, .api) { request, _ in try await profile(request) }
        r.on("/store/notifications", .post, .api) { request, _ in try await notification(request) }
        r.on("/sandbox/transactions", .post, .api) { request, _ in try await sandboxTransaction(request) }
        r.on("/sandbox/notifications", .post, .api) { request, _ in try await sandboxNotification(request) }
        // Signed bundle links live outside /api/v1: a CDN in front of the server caches them.
        var links = RouteTable(router: router, labels: labels)
        links.get("/bundles/:product/:version/:file", .download) { request, context in
            try await linkedBundle(
                request, product: try Self.parameter("product", context),
                version: try Self.parameter("version", context), file: try Self.parameter("file", context))
        }
        links.finish(["/bundles/:product/:version/:file"])
        r.finish([
            "/openapi.json", "/accounts", "/sessions", "/devices", "/devices/:device/installs/:product", "/installs", "/catalog",
            "/catalog/:product", "/purchases", "/entitlements", "/downloads/:product", "/updates/:product/:from",
            "/downloads/:product/patches/:patch", "/areas/quotes", "/areas/quotes/:quote", "/areas", "/tile-tokens", "/download-links",
            "/trails", "/trails/:trail", "/trails/:trail/gpx", "/trails/:trail/profile", "/elevation", "/profile",
            "/store/notifications", "/sandbox/transactions", "/sandbox/notifications"
        ])
    }

    /// A path parameter, as the client sent it (still percent-encoded).
    static func parameter(_ name: String, _ context: TrailMapRequestContext) throws -> Substring {
        Substring(try context.parameters.require(name))
    }

    // MARK: request helpers

    /// The bearer token of the request, or nil.
    static func bearer(_ request: Request) -> String? { bearer(authorization: request.headers[.authorization]) }

    /// The bearer token of an `Authorization` header's value, or nil.
    static func bearer(authorization: String?) -> String? {
        guard let h = authorization, h.utf8.count < 1024 else { return nil }
        let parts = h.split(separator: " ", maxSplits: 1)
        // Compared and trimmed as bytes when ASCII (every paid tile on the tile loops comes here).
        guard parts.count == 2, parts[0].utf8.elementsEqual("bearer".utf8, by: { $0 | 0x20 == $1 }) else { return nil }
        let token = parts[1]
        guard token.utf8.allSatisfy({ $0 < 0x80 }) else { return token.trimmingCharacters(in: .whitespaces) }
        let blank = { (byte: UInt8) in byte == 0x20 || byte == 0x09 }
        guard let first = token.utf8.firstIndex(where: { !blank($0) }), let last = token.utf8.lastIndex(where: { !blank($0) }) else {
            return ""
        }
        return String(token[first...last])
    }

    /// The caller's account; 401 without a live token.
    func account(_ request: Request) async throws -> Account {
        guard let token = Self.bearer(request) else { throw APIError(CatalogError.unauthorized) }
        return try await catalog.authenticate(token: token)
    }

    /// The caller's account when a token is given (an invalid token is still a 401).
    func optionalAccount(_ request: Request) async throws -> Account? {
        Self.bearer(request) == nil ? nil : try await account(request)
    }

    /// Decodes a JSON body of at most `settings.maxBodyBytes`; a larger one is a 400 `body_too_large`
    /// (bad input as any other: every client and contract checker reads it so, where a 413 is not
    /// on schemathesis' list of rejections).
    func body<T: Decodable>(_ type: T.Type, _ request: Request) async throws -> T {
        if let type = request.headers[.contentType], !type.lowercased().hasPrefix("application/json") {
            throw APIError(.unsupportedMediaType, code: "unsupported_media_type", message: "send JSON (Content-Type: application/json)")
        }
        var request = request
        let buffer: ByteBuffer
        do { buffer = try await request.collectBody(upTo: settings.maxBodyBytes) } catch {
            throw APIError(.badRequest, code: "body_too_large", message: "the request body is larger than \(settings.maxBodyBytes) bytes")
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

    static func empty(_ status: HTTPResponse.Status = .noContent) -> Response {
        Response(status: status, headers: [.accessControlAllowOrigin: "*", .cacheControl: "no-store"])
    }
}
