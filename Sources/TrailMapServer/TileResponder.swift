import Foundation
import Raster
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import TileCache
import TileGeometry
import TileStore

/// Answers every request of the tile server. Paths are parsed by hand (no router) because the
/// tile route is the hot path: one split of the path, one SQLite lookup, one buffer copy.
public struct TileResponder: HTTPResponder {
    public typealias Context = TrailMapRequestContext

    let registry: TilesetRegistry
    let config: ServerConfiguration
    let metrics: ServerMetrics
    let logger: Logger
    let assets: AssetStore
    let emptyTiles: EmptyTileCache
    /// The store API and paid-tile checks, when the server has a catalog.
    let store: StoreAPI?
    let access: TileAccess?
    /// `Cache-Control` of free and of paid tiles, made once.
    let publicTileCaching: String
    let privateTileCaching: String

    public init(registry: TilesetRegistry, config: ServerConfiguration, metrics: ServerMetrics, logger: Logger,
                store: StoreSettings? = nil) {
        self.registry = registry
        self.config = config
        self.metrics = metrics
        self.logger = logger
        assets = AssetStore(leafletDirectory: config.leafletDirectory)
        emptyTiles = EmptyTileCache()
        self.store = store.map {
            StoreAPI(settings: $0, logger: logger) { id in
                if case let .found(t) = registry.lookup(id) { return t.format.fileExtension }
                return "png"
            }
        }
        access = store.map { TileAccess(catalog: $0.catalog, tokens: $0.tileTokens) }
        publicTileCaching = "public, max-age=\(config.tileMaxAge)"
        privateTileCaching = "private, max-age=\(config.tileMaxAge)"
        metrics.attach(registry.cache)
    }

    public func respond(to request: Request, context: Context) async throws -> Response {
        let start = ContinuousClock.now
        var route = Route.other
        var response: Response
        do {
            if request.uri.path.hasPrefix("/admin/") {
                response = try await admin(request, route: &route)
            } else if let store, request.uri.path.hasPrefix("/api/v1/"), request.method != .options {
                let parts = request.uri.path.split(separator: "/", omittingEmptySubsequences: false).dropFirst(3)
                response = try await store.respond(request, parts: Array(parts), context: context, route: &route)
            } else {
                response = try handle(request, route: &route)
            }
        } catch let error as APIError {
            response = try error.response(from: request, context: context)
        } catch {
            logger.error("unexpected error on \(request.uri.path): \(error)")
            response = try APIError(.internalServerError, code: "internal", message: "internal error")
                .response(from: request, context: context)
        }
        let bodyBytes = response.body.contentLength ?? 0
        if request.method == .head { response = response.createHeadResponse() }
        let elapsed = ContinuousClock.now - start
        metrics.record(route: route, status: response.status.code, bodyBytes: request.method == .head ? 0 : bodyBytes,
                       duration: elapsed)
        logger.info("\(request.method) \(request.uri.path) \(response.status.code) \(bodyBytes)B \(elapsed)")
        return response
    }

    func handle(_ request: Request, route: inout Route) throws -> Response {
        let path = request.uri.path
        guard path.utf8.count <= 2048 else { throw APIError.badRequest("the path is too long") }
        switch request.method {
        case .get, .head: break
        case .options: return preflight()
        default:
            var e = APIError(.methodNotAllowed, code: "method_not_allowed", message: "\(request.method) is not allowed here; use GET or HEAD")
            e.headers[.allow] = "GET, HEAD, OPTIONS"
            throw e
        }
        let parts = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        guard let first = parts.first else { throw APIError.notFound("not_found", "no such page") }
        switch (first, parts.count) {
        case ("tiles", 5):
            route = .tile
            return try tile(Array(parts), request: request)
        case ("tiles", 2) where parts.last?.hasSuffix(".json") == true:
            route = .tilejson
            return try tileJSON(String(parts.last!.dropLast(5)), request: request)
        case ("tiles", 1), ("tiles", 2) where parts.last == "":
            route = .list
            let base = origin(request)
            return json(["tilesets": registry.all.map { t in
                var entry = TileJSON.summary(t, base: base)
                if let product = try? access?.paidProduct(tileset: t.id) {
                    entry["paid"] = true
                    entry["productId"] = product
                }
                return entry
            }], request: request)
        case ("", 1), ("index.html", 1):
            route = .viewer
            return Response(status: .ok, headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-cache",
                                                   .contentSecurityPolicy: PageSecurity.viewer],
                            body: ResponseBody(byteBuffer: ByteBuffer(string: ViewerPage.html)))
        case ("store", 1) where store != nil:
            route = .store
            return Response(status: .ok, headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-cache",
                                                   .contentSecurityPolicy: PageSecurity.store],
                            body: ResponseBody(byteBuffer: ByteBuffer(string: StorePage.html)))
        case ("viewer", _):
            route = .asset
            return try assets.response(for: parts.dropFirst().joined(separator: "/"))
        case ("healthz", 1):
            route = .health
            return json(["status": "ok", "tilesets": registry.all.count], request: request)
        case ("metrics", 1):
            route = .metrics
            return Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8", .cacheControl: "no-store"],
                            body: ResponseBody(byteBuffer: ByteBuffer(bytes: metrics.render())))
        default:
            throw APIError.notFound("not_found", "no such page: \(path.prefix(200))")
        }
    }

    /// `GET /tiles/{tileset}/{z}/{x}/{y}.{png|webp|jpg}` (the extension of the tileset's format)
    func tile(_ parts: [Substring], request: Request) throws -> Response {
        var paid = false
        if let access, let product = try access.paidProduct(tileset: try tilesetID(parts[1])) {
            try access.authorize(request, productID: product)
            paid = true
        }
        let answer = try tileAnswer(parts, ifNoneMatch: request.headers[.ifNoneMatch], authorized: paid)
        if answer.notModified { return Response(status: answer.status, headers: answer.headers) }
        return Response(status: answer.status, headers: answer.headers, body: ResponseBody(byteBuffer: answer.body))
    }

    /// A tile answer: 200 with the tile, or 304 (`notModified`); every failure is a thrown `APIError`.
    struct TileAnswer {
        var notModified: Bool
        var etag: String
        var cacheControl: String
        /// The encoded tile (the cache's own storage, not a copy); not sent with a 304.
        var body: ByteBuffer

        /// The tile's MIME type from its own magic numbers (a jpg bundle's transparent tiles are
        /// PNG, and so is `--empty-tiles transparent`'s tile in any bundle). A look at the first
        /// bytes of the cached buffer, in place: no copy, no allocation.
        var contentType: String {
            body.withUnsafeReadableBytes { TileFormat.sniff(head: $0) }?.contentType ?? "application/octet-stream"
        }

        var status: HTTPResponse.Status { notModified ? .notModified : .ok }

        /// The header fields of the response (Hummingbird's path; `TileFastPath` writes the same ones).
        var headers: HTTPFields {
            var headers: HTTPFields = [.eTag: etag, .cacheControl: cacheControl, .accessControlAllowOrigin: "*"]
            if !notModified {
                headers[.contentType] = contentType
                headers[.contentLength] = String(body.readableBytes)
            }
            return headers
        }
    }

    /// The tile route's logic, shared by the Hummingbird responder and the event-loop fast path.
    /// `parts` are the path components after the leading slash: tiles, id, z, x, y.EXT.
    /// A paid region's tile needs `authorized` (checked by the caller); without it this throws 401.
    /// `client` names the client for prefetch (nil: no prediction).
    /// `onEventLoop`: called by the fast path, which must not read the catalog (a stale paid map
    /// throws, and the request goes to the Hummingbird path).
    func tileAnswer(_ parts: [Substring], ifNoneMatch: String?, authorized: Bool = false, client: String? = nil,
                    onEventLoop: Bool = false) throws -> TileAnswer {
        let id = try tilesetID(parts[1])
        if !authorized, let access, try access.paidProduct(tileset: id, mayRead: !onEventLoop) != nil {
            throw APIError(.unauthorized, code: "unauthorized", message: "tileset \(id) is a paid region: send a bearer token or a tile token")
        }
        guard let dot = parts[4].lastIndex(of: ".") else {
            let ext = (try? available(id))?.format.fileExtension ?? "png"
            throw APIError.notFound("not_found", "a tile URL ends in the extension of its tileset's format: /tiles/\(id)/{z}/{x}/{y}.\(ext) (see /tiles/\(id).json)")
        }
        let ext = parts[4][parts[4].index(after: dot)...]
        guard let z = Self.coordinate(parts[2]), let x = Self.coordinate(parts[3]), let y = Self.coordinate(parts[4][..<dot]) else {
            throw APIError.badRequest("z, x and y must be non-negative integers: /tiles/\(id)/{z}/{x}/{y}.\(ext.prefix(8))")
        }
        guard let tile = TileID(z: z, x: x, y: y) else {
            throw APIError.badRequest("tile \(z)/\(x)/\(y) does not exist: z goes from 0 to 22 and x, y from 0 to 2^z - 1")
        }
        let tileset = try available(id)
        let format = tileset.format
        guard ext == format.fileExtension || (format == .jpg && ext == "jpeg") else {
            throw APIError.notFound("wrong_extension", "tileset \(id) holds \(format) tiles, not .\(ext.prefix(8)): "
                                    + "/tiles/\(id)/\(z)/\(x)/\(y).\(format.fileExtension) (every tile: /tiles/\(id)/{z}/{x}/{y}.\(format.fileExtension))")
        }
        let meta = tileset.metadata
        guard (meta.minZoom...max(meta.minZoom, meta.maxZoom)).contains(z) else {
            throw APIError(.badRequest, code: "zoom_out_of_range", message: "tileset \(id) has zoom levels \(meta.minZoom) to \(meta.maxZoom), not \(z)")
        }
        guard tileset.bundle != nil else { throw APIError.unavailable("tileset \(id) cannot be read") }
        let found: (ByteBuffer, String)?
        do {
            found = try registry.cachedTile(tileset, tile, client: client).map { ($0.buffer, $0.etag) }
        } catch let error as TileCacheError {
            logger.warning("tileset \(id): \(error)")
            var e = APIError.unavailable("tileset \(id) is busy: \(error)")
            e.headers[.retryAfter] = "1"
            throw e
        } catch {
            logger.warning("tileset \(id): read failed: \(error)")
            throw APIError.unavailable("tileset \(id) cannot be read: the bundle is damaged or was changed on disk")
        }
        let (body, etag): (ByteBuffer, String)
        if let found {
            (body, etag) = found
        } else if config.emptyTiles == .transparent, let empty = emptyTiles.tile(size: tileset.tileSize) {
            (body, etag) = empty
        } else {
            throw APIError.notFound("tile_not_found", "tileset \(id) has no tile \(z)/\(x)/\(y)")
        }
        let notModified = ifNoneMatch.map { Self.matches($0, etag: etag) } ?? false
        return TileAnswer(notModified: notModified, etag: etag, cacheControl: authorized ? privateTileCaching : publicTileCaching,
                          body: body)
    }

    /// `GET /tiles/{tileset}.json`
    func tileJSON(_ raw: String, request: Request) throws -> Response {
        let id = try tilesetID(Substring(raw))
        let t = try available(id)
        return json(TileJSON.document(t, base: origin(request)), request: request)
    }

    /// The decoded, validated tileset id of a path component.
    func tilesetID(_ component: Substring) throws -> String {
        guard let id = TileRequestParsing.tilesetID(component) else {
            throw APIError.badRequest("invalid tileset name: use letters, digits, '-', '_' and '.', not starting with '.'")
        }
        return id
    }

    /// A tileset that can be served, or the right error.
    func available(_ id: String) throws -> Tileset {
        switch registry.lookup(id) {
        case .unknown: throw APIError.notFound("unknown_tileset", "no tileset \(id)")
        case .removed: throw APIError.unavailable("tileset \(id) was removed from the tiles folder")
        case let .found(t):
            if let failure = t.failure { throw APIError.unavailable("tileset \(id) cannot be served: \(failure)") }
            return t
        }
    }

    /// Parses a z/x/y path component: ASCII digits only, at most 9 of them.
    static func coordinate<S: StringProtocol>(_ s: S) -> Int? { TileRequestParsing.coordinate(s) }

    /// Whether an If-None-Match value matches a strong ETag (weak comparison, as RFC 9110 says for this header).
    static func matches(_ header: String, etag: String) -> Bool { TileRequestParsing.etagMatches(header, etag: etag) }

    func preflight() -> Response {
        Response(status: .noContent, headers: [
            .accessControlAllowOrigin: "*",
            .accessControlAllowMethods: store == nil ? "GET, HEAD, OPTIONS" : "GET, HEAD, POST, PUT, DELETE, OPTIONS",
            .accessControlAllowHeaders: "Authorization, Content-Type, If-None-Match, Range, If-Range",
            .accessControlMaxAge: "86400",
        ])
    }

    /// `http://host:port` as the client addressed the server (for URLs in TileJSON).
    func origin(_ request: Request) -> String {
        StoreAPI.origin(request, fallback: "http://\(config.host):\(config.port)")
    }

    /// A JSON response, gzip-compressed when the client accepts it and it is worth it.
    func json(_ object: Any, request: Request) -> Response {
        JSONReply.make(object, request: request)
    }
}
