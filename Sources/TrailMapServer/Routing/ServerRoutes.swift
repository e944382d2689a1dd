import HTTPTypes
import Hummingbird
import NIOCore

/// Every route the server answers through Hummingbird: pages, TileJSON, health, metrics, admin,
/// the store API, and tiles that `TileFastPath` leaves (paid tiles, errors, a request behind
/// another on the same connection). Middleware, outermost first: metrics and the log line, JSON
/// errors, CORS, the path-length limit.
///
/// A path registered for some methods answers the other standard methods with 405 and an
/// `Allow` header; an unregistered path is a JSON 404.
enum ServerRoutes {
    static func router(for r: TileResponder) -> RouterResponder<TrailMapRequestContext> {
        let router = Router(context: TrailMapRequestContext.self, options: [.autoGenerateHeadEndpoints])
        let labels = RouteRegistry()
        router.add(middleware: RequestMetricsMiddleware(metrics: r.metrics, logger: r.logger, labels: labels))
        router.add(middleware: APIErrorMiddleware(logger: r.logger, routes: labels))
        router.add(middleware: PreflightMiddleware(storeEnabled: r.store != nil))
        router.add(middleware: PathLimitMiddleware())
        var routes = RouteTable(router: router, labels: labels)

        routes.get("/", .viewer) { request, _ in r.viewerPage(request) }
        routes.get("/index.html", .viewer) { request, _ in r.viewerPage(request) }
        routes.get("/viewer", .asset) { _, _ in try r.assets.response(for: "") }
        routes.get("/viewer/**", .asset) { request, context in
            try r.assets.response(for: context.parameters.getCatchAll().joined(separator: "/"), ifNoneMatch: request.headers[.ifNoneMatch])
        }
        routes.get("/healthz", .health) { request, _ in r.json(HealthReport(tilesets: r.registry.all.count), request: request) }
        routes.get("/metrics", .metrics) { _, _ in r.metricsPage() }
        routes.get("/tiles", .list) { request, _ in await r.tilesetList(request) }
        // One parameter name per position (Hummingbird's rule): here it is the TileJSON's (or the archive's) file name.
        routes.get("/tiles/:tileset", .tilejson) { request, context in
            let file = try context.parameters.require("tileset")
            if file.hasSuffix(".pmtiles") { return try await r.archive(String(file.dropLast(8)), request: request) }
            guard file.hasSuffix(".json") else { throw APIError.notFound("not_found", "no such page: \(request.uri.path.prefix(200))") }
            return try r.tileJSON(String(file.dropLast(5)), request: request)
        }
        routes.get("/tiles/:tileset/:z/:x/:file", .tile) { request, context in
            // The raw components (the router drops empty ones; a tile path has none).
            let parts = request.uri.path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
            guard let path = TilePath(parts) else { throw APIError.notFound("not_found", "no such page: \(request.uri.path.prefix(200))") }
            return try await r.tile(path, request: request, peer: context.clientAddress)
        }
        routes.get("/wmts/1.0.0/WMTSCapabilities.xml", .wmts) { request, _ in r.wmtsCapabilities(request) }
        routes.get("/wmts", .wmts) { request, context in await r.wmtsKVP(request, peer: context.clientAddress) }
        routes.get("/wmts/1.0.0/:layer/:style/:set/:matrix/:row/:file", .wmts) { request, context in
            await r.wmtsRESTTile(request, peer: context.clientAddress)
        }
        if r.store != nil { routes.get("/store", .store) { request, _ in r.storePage(request) } }
        routes.finish(
            [
                r.store != nil ? "/store" : nil, "/", "/index.html", "/viewer", "/viewer/**", "/healthz", "/metrics", "/tiles",
                "/tiles/:tileset",
                "/tiles/:tileset/:z/:x/:file", "/wmts/1.0.0/WMTSCapabilities.xml", "/wmts",
                "/wmts/1.0.0/:layer/:style/:set/:matrix/:row/:file"
            ].compactMap { $0 })

        let admin = router.group("/admin").add(middleware: AdminAuthMiddleware(token: r.config.adminToken))
        var adminRoutes = RouteTable(router: admin, labels: labels, prefix: "/admin")
        adminRoutes.get("/cache", .admin) { request, _ in r.adminCache(request) }
        adminRoutes.on("/memory-pressure", .post, .admin) { request, _ in try await r.adminMemoryPressure(request) }
        adminRoutes.finish(["/cache", "/memory-pressure"])

        if let store = r.store { store.addRoutes(to: router, labels: labels) }
        return router.buildResponder()
    }
}

/// Registers routes with their metrics label and remembers each path's methods, so that
/// `finish` can answer the other methods with 405.
struct RouteTable<Router: RouterMethods<TrailMapRequestContext>> {
    typealias Handler = @Sendable (Request, TrailMapRequestContext) async throws -> Response

    let router: Router
    let labels: RouteRegistry
    /// The group's path prefix (labels are keyed by the full endpoint path).
    var prefix = ""
    private var methods: [String: [HTTPRequest.Method]] = [:]

    init(router: Router, labels: RouteRegistry, prefix: String = "") {
        self.router = router
        self.labels = labels
        self.prefix = prefix
    }

    /// A GET route (HEAD is answered from it, without the body).
    mutating func get(_ path: String, _ label: Route, _ handler: @escaping Handler) {
        on(path, .get, label, handler)
    }

    mutating func on(_ path: String, _ method: HTTPRequest.Method, _ label: Route, _ handler: @escaping Handler) {
        router.on(RouterPath(path), method: method, use: handler)
        labels.set(label, for: RouterPath(prefix + path))
        methods[path, default: []].append(method)
    }

    /// Answers every other standard method on `paths` (RFC 9110's and PATCH) with 405 and the
    /// allowed ones; OPTIONS is the preflight's.
    func finish(_ paths: [String]) {
        let common: [HTTPRequest.Method] = [.get, .head, .post, .put, .delete, .patch, .trace, .connect]
        for path in paths {
            var allowed = methods[path] ?? []
            if allowed.contains(.get) { allowed.append(.head) }
            let allow = (allowed + [.options]).map(\.rawValue).joined(separator: ", ")
            // Other methods (QUERY, made-up ones) are answered by APIErrorMiddleware; the admin
            // routes stay hidden behind their token check.
            if prefix != "/admin" { labels.allow(allow, for: prefix + path) }
            for method in common where !allowed.contains(method) {
                router.on(RouterPath(path), method: method) { request, _ -> Response in
                    var e = APIError(
                        .methodNotAllowed, code: "method_not_allowed",
                        message: "\(request.method) is not allowed on \(request.uri.path.prefix(200)); use \(allow)")
                    e.headers[.allow] = allow
                    throw e
                }
            }
        }
    }
}
