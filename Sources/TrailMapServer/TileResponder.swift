import Foundation
import Raster
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import TileCache
import TileGeometry
import TileStore

/// Answers every request of the tile server that `TileFastPath` does not: through Hummingbird's
/// router (`ServerRoutes`), whose handlers are this type's methods and `StoreAPI`'s.
public struct TileResponder: HTTPResponder {
    public typealias Context = TrailMapRequestContext

    /// What the responder answers with, in one object: a copy of the responder (a tile loop
    /// passing its own to each request, a route's closure) retains one reference, not each part.
    private final class Parts: Sendable {
        let registry: TilesetRegistry
        let config: ServerConfiguration
        let metrics: ServerMetrics
        let logger: Logger
        let assets: AssetStore
        let emptyTiles: EmptyTileCache
        let store: StoreAPI?
        let access: TileAccess?
        let publicTileCaching: String
        let privateTileCaching: String

        init(
            registry: TilesetRegistry, config: ServerConfiguration, metrics: ServerMetrics, logger: Logger, store: StoreAPI?,
            access: TileAccess?
        ) {
            self.registry = registry
            self.config = config
            self.metrics = metrics
            self.logger = logger
            self.store = store
            self.access = access
            assets = AssetStore(leafletDirectory: config.leafletDirectory)
            emptyTiles = EmptyTileCache()
            publicTileCaching = "public, max-age=\(config.tileMaxAge)"
            privateTileCaching = "private, max-age=\(config.tileMaxAge)"
        }
    }

    private let parts: Parts
    var registry: TilesetRegistry { parts.registry }
    var config: ServerConfiguration { parts.config }
    var metrics: ServerMetrics { parts.metrics }
    var logger: Logger { parts.logger }
    var assets: AssetStore { parts.assets }
    var emptyTiles: EmptyTileCache { parts.emptyTiles }
    /// The store API and paid-tile checks, when the server has a catalog.
    var store: StoreAPI? { parts.store }
    var access: TileAccess? { parts.access }
    /// `Cache-Control` of free and of paid tiles, made once.
    var publicTileCaching: String { parts.publicTileCaching }
    var privateTileCaching: String { parts.privateTileCaching }
    /// Every request `TileFastPath` leaves goes through it (`ServerRoutes`); set once, by `init`.
    private(set) var router: RouterResponder<Context>?

    public init(
        registry: TilesetRegistry, config: ServerConfiguration, metrics: ServerMetrics, logger: Logger,
        store: StoreSettings? = nil
    ) {
        let access = store.map {
            TileAccess(
                catalog: $0.catalog, tokens: $0.tileTokens, publicTilesets: $0.publicTilesets, grantLifetime: config.grantLifetime,
                metrics: metrics, logger: logger)
        }
        let api = store.map {
            StoreAPI(
                settings: $0, logger: logger, tilesDirectory: registry.directory, publicOrigin: config.publicURL ?? "",
                tileExtension: { id in
                    if case let .found(t) = registry.lookup(id) { return t.format.fileExtension }
                    return "png"
                }, registry: registry, access: access)
        }
        parts = Parts(registry: registry, config: config, metrics: metrics, logger: logger, store: api, access: access)
        metrics.attach(registry.cache)
        router = nil
        router = ServerRoutes.router(for: self)
    }

    public func respond(to request: Request, context: Context) async throws -> Response {
        try await router!.respond(to: request, context: context)
    }

    /// The viewer's page, with its ETag.
    static let viewerAsset = PageAsset(
        text: ViewerPage.html, contentType: "text/html; charset=utf-8", cacheControl: "no-cache",
        extra: [.contentSecurityPolicy: PageSecurity.viewer])
    /// The store's page, with its ETag.
    static let storeAsset = PageAsset(
        text: StorePage.html, contentType: "text/html; charset=utf-8", cacheControl: "no-cache",
        extra: [.contentSecurityPolicy: PageSecurity.store])

    /// `GET /` and `/index.html`: the map viewer (304 when the browser holds it).
    func viewerPage(_ request: Request) -> Response {
        Self.viewerAsset.response(ifNoneMatch: request.headers[.ifNoneMatch])
    }

    /// `GET /store`: the store page (servers with a catalog; 304 when the browser holds it).
    func storePage(_ request: Request) -> Response {
        Self.storeAsset.response(ifNoneMatch: request.headers[.ifNoneMatch])
    }

    /// `GET /metrics`: Prometheus text.
    func metricsPage() -> Response {
        Response(
            status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8", .cacheControl: "no-store"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: metrics.render())))
    }

    /// `GET /tiles`: every tileset's summary, paid ones marked with their product.
    func tilesetList(_ request: Request) async -> Response {
        let map = try? await access?.accessMap()
        // Without a store every tileset is public; with one whose catalog cannot be read, none is.
        let guarding: (String) -> String? = { id in
            guard access != nil else { return nil }
            guard let map else { return TileAccess.closedProduct }
            return map.product(for: id)
        }
        var list = TileJSON.list(registry.all, base: origin, paidProduct: guarding)
        for i in list.tilesets.indices
        where list.tilesets[i].productId != nil || guarding(list.tilesets[i].id) == TileAccess.areaSourceProduct {
            if case let .found(t) = registry.lookup(list.tilesets[i].id), t.publicFailure == nil {
                list.tilesets[i].previewMaxzoom = previewMaxZoom(t)
            }
        }
        list.base = TileJSON.baseTileset(in: list.tilesets, configured: config.baseTileset)
        if let b = list.base, let i = list.tilesets.firstIndex(where: { $0.id == b }) { list.tilesets[i].layer = .base }
        return json(list, request: request)
    }

    /// `GET /tiles/{tileset}/{z}/{x}/{y}.{png|webp|jpg}` (the extension of the tileset's format).
    /// `peer`: the client's address, which names its map session for prefetch when neither the
    /// configured client header nor a paid tile's credential does.
    func tile(_ parts: TilePath, request: Request, peer: String? = nil) async throws -> Response {
        var paid = false
        var session: String?
        let id = try tilesetID(parts[1])
        if let access, let product = try await access.paidProduct(tileset: id), !isPreview(id, product: product, z: parts[2]) {
            session = try await access.authorize(request, productID: product)
            paid = true
        }
        let client = prefetchClient(request, session: session, peer: peer)
        let answer: TileAnswer
        switch try tileAnswer(parts, ifNoneMatch: request.headers[.ifNoneMatch], authorized: paid, client: client) {
        case let .tile(found): answer = found
        case let .absent(error), let .refused(error): throw error
        }
        if answer.notModified { return Response(status: answer.status, headers: answer.headers) }
        return Response(status: answer.status, headers: answer.headers, body: ResponseBody(byteBuffer: answer.body))
    }

    /// Who asks for a tile on Hummingbird's path, for prefetch: the configured client header's
    /// value, else the login session of a paid tile's credential (one buyer's devices are apart),
    /// else `peer`; nil with prefetch off. The event loops' paths name clients the same way (a
    /// granted paid tile's session: `tileAnswer`'s `credential`).
    func prefetchClient(_ request: Request, session: String?, peer: String?) -> String? {
        var client = PrefetchClient(config.cache)
        let header = client.headerName.flatMap { HTTPField.Name($0) }.flatMap { request.headers[$0] }
        return client.name(headerValue: header?[...]) { session.map { "session " + $0 } ?? peer }
    }

    /// What the tile route found at an address. Every failure is a thrown `APIError`.
    enum TileOutcome {
        /// 200 with the tile, or 304.
        case tile(TileAnswer)
        /// The bundle has no tile there (empty sea skipped at build, common on maps): a 404 that
        /// the fast path answers itself, so the bundle is not read again by the Hummingbird path.
        case absent(APIError)
        /// A paid tile refused before any catalog read (`TileAccess.refusal(productID:presented:)`):
        /// the 401 or 403 `TileAccess.authorize` throws, which the fast path answers itself.
        case refused(APIError)
    }

    /// A tile answer: 200 with the tile, or 304 (`notModified`).
    struct TileAnswer {
        var notModified: Bool
        var etag: String
        var cacheControl: String
        /// The encoded tile (the cache's own storage, not a copy); not sent with a 304.
        var body: ByteBuffer
        /// The tile's MIME type from its own magic numbers (a jpg bundle's transparent tiles are
        /// PNG, and so is `--empty-tiles transparent`'s tile in any bundle), found when the tile
        /// entered the cache.
        var contentType: String

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
    /// `client` names the client for prefetch (nil: no prediction); `milliseconds`, the request's
    /// time for the predictor (`PrefetchPredictor.milliseconds()`; nil: read when needed).
    /// `onEventLoop`: called by the fast path, which never reads the catalog (a stale paid map
    /// throws `StaleAccessMap`: a tile loop waits for a read of it, other fast paths leave the
    /// request to Hummingbird's path, which reads it first); `paidMapRead`: this request has
    /// waited for a read of the paid map (`TileAccess.read`: one begun after it arrived, or a
    /// failed one that leaves the last map in force), so the map is taken as it is, as
    /// Hummingbird's path takes it after its own read.
    /// `credential`: the fast path's request's, which opens a paid tile when the catalog accepted
    /// it lately (`TileGrants`); then the buyer's login session names the client for prefetch,
    /// unless `client` is the configured client header's value (`clientFromHeader`). On the fast
    /// path a credential with no grant yet throws `TileGrants.Needed` (when grants are kept); no
    /// credential, or a tileset nobody may buy whole, is `.refused`.
    func tileAnswer(
        _ parts: TilePath, ifNoneMatch: String?, authorized: Bool = false, client: String? = nil,
        milliseconds: UInt64? = nil, onEventLoop: Bool = false, paidMapRead: Bool = false,
        credential: @autoclosure () -> TileGrants.Credential.Presented = .unclear,
        clientFromHeader: Bool = false
    ) throws -> TileOutcome {
        let id = try tilesetID(parts[1])
        var authorized = authorized
        var client = client
        if !authorized, let access,
            let product = try access.cachedPaidProduct(tileset: id, allowStale: !onEventLoop || paidMapRead, onEventLoop: onEventLoop),
            !isPreview(id, product: product, z: parts[2])
        {
            let presented = credential()
            if let refusal = TileAccess.refusal(productID: product, presented: presented != .nothing) { return .refused(refusal) }
            guard case let .credential(credential) = presented, let grant = access.grants.session(credential, product: product) else {
                if onEventLoop, case let .credential(credential) = presented, access.grants.lifetime > 0 {
                    throw TileGrants.Needed(credential: credential, product: product)
                }
                throw APIError(
                    .unauthorized, code: "unauthorized", message: "tileset \(id) is a paid region: send a bearer token or a tile token")
            }
            if grant.renew { access.renew(credential, productID: product) }
            authorized = true
            if client != nil, !clientFromHeader { client = "session " + grant.session }
        }
        // Searched as bytes: a search for a Character walks grapheme boundaries.
        guard let dot = parts[4].utf8.lastIndex(of: UInt8(ascii: ".")) else {
            let ext = (try? available(id))?.format.fileExtension ?? "png"
            throw APIError.notFound(
                "not_found",
                "a tile URL ends in the extension of its tileset's format: /tiles/\(id)/{z}/{x}/{y}.\(ext) (see /tiles/\(id).json)")
        }
        let ext = parts[4][parts[4].utf8.index(after: dot)...]
        guard let z = Self.coordinate(parts[2]), let x = Self.coordinate(parts[3]), let y = Self.coordinate(parts[4][..<dot]) else {
            throw APIError.badRequest("z, x and y must be non-negative integers: /tiles/\(id)/{z}/{x}/{y}.\(ext.prefix(8))")
        }
        guard let tile = TileID(z: z, x: x, y: y) else {
            throw APIError.badRequest("tile \(z)/\(x)/\(y) does not exist: z goes from 0 to 22 and x, y from 0 to 2^z - 1")
        }
        let tileset = try available(id)
        let format = tileset.format
        guard ext.utf8.elementsEqual(format.fileExtension.utf8) || (format == .jpg && ext.utf8.elementsEqual("jpeg".utf8)) else {
            throw APIError.notFound(
                "wrong_extension",
                "tileset \(id) holds \(format) tiles, not .\(ext.prefix(8)): "
                    + "/tiles/\(id)/\(z)/\(x)/\(y).\(format.fileExtension) (every tile: /tiles/\(id)/{z}/{x}/{y}.\(format.fileExtension))")
        }
        let meta = tileset.metadata
        guard (meta.minZoom...max(meta.minZoom, meta.maxZoom)).contains(z) else {
            throw APIError(
                .badRequest, code: "zoom_out_of_range",
                message: "tileset \(id) has zoom levels \(meta.minZoom) to \(meta.maxZoom), not \(z)")
        }
        guard tileset.bundle != nil else { throw APIError.unavailable("tileset \(id) cannot be read") }
        let found: CachedTile?
        do {
            found = try registry.cachedTile(tileset, tile, client: client, milliseconds: milliseconds)
        } catch let error as TileCacheError {
            logger.warning("tileset \(id): \(error)")
            var e = APIError.unavailable("tileset \(id) is busy; try again shortly")
            e.headers[.retryAfter] = "1"
            throw e
        } catch {
            logger.warning("tileset \(id): read failed: \(error)")
            throw APIError.unavailable("tileset \(id) cannot be read: the bundle is damaged or was changed on disk")
        }
        let answer: CachedTile
        if let found {
            answer = found
        } else if config.emptyTiles == .transparent, let empty = emptyTiles.tile(size: tileset.tileSize) {
            answer = empty
        } else {
            return .absent(APIError.notFound("tile_not_found", "tileset \(id) has no tile \(z)/\(x)/\(y)"))
        }
        let notModified = ifNoneMatch.map { Self.matches($0, etag: answer.etag) } ?? false
        return .tile(
            TileAnswer(
                notModified: notModified, etag: answer.etag, cacheControl: authorized ? privateTileCaching : publicTileCaching,
                body: answer.buffer, contentType: answer.contentType))
    }

    /// `GET /tiles/{tileset}.json`
    func tileJSON(_ raw: String, request: Request) throws -> Response {
        let id = try tilesetID(Substring(raw))
        let t = try available(id)
        return json(TileJSON.document(t, base: origin), request: request)
    }

    /// The decoded, validated tileset id of a path component.
    func tilesetID(_ component: Substring) throws -> String {
        guard let id = TileRequestParsing.tilesetID(component) else {
            throw APIError.badRequest("invalid tileset name: use letters, digits, '-', '_' and '.', not starting with '.'")
        }
        return id
    }

    /// Whether a tile at zoom `z` of paid tileset `id` (sold as `product`) is in its preview, which
    /// anyone may read (`PreviewZooms`). Asked only for paid tilesets, so free tiles pay nothing;
    /// a tileset no product sells on its own has no preview, unless area products cut from it.
    func isPreview(_ id: String, product: String, z: Substring) -> Bool {
        guard product != TileAccess.closedProduct, let z = Self.coordinate(z), case let .found(t) = registry.lookup(id),
            t.publicFailure == nil, let top = previewMaxZoom(t)
        else { return false }
        return z <= top
    }

    /// The highest zoom of `t`'s preview under this server's `previewZooms`, nil for none.
    func previewMaxZoom(_ t: Tileset) -> Int? {
        PreviewZooms.maxZoom(minZoom: t.metadata.minZoom, maxZoom: t.metadata.maxZoom, levels: config.previewZooms)
    }

    /// A tileset that can be served, or the right error.
    func available(_ id: String) throws -> Tileset {
        switch registry.lookup(id) {
        case .unknown: throw APIError.notFound("unknown_tileset", "no tileset \(id)")
        case .removed: throw APIError.unavailable("tileset \(id) was removed from the tiles folder")
        case let .found(t):
            if let failure = t.publicFailure { throw APIError.unavailable("tileset \(id) cannot be served: \(failure)") }
            return t
        }
    }

    /// Parses a z/x/y path component: ASCII digits only, at most 9 of them.
    static func coordinate<S: StringProtocol>(_ s: S) -> Int? { TileRequestParsing.coordinate(s) }

    /// Whether an If-None-Match value matches a strong ETag (weak comparison, as RFC 9110 says for this header).
    static func matches(_ header: String, etag: String) -> Bool { TileRequestParsing.etagMatches(header, etag: etag) }

    /// The prefix of URLs in TileJSON and tile lists: the configured public origin, else none
    /// (URLs relative to the server). Never taken from the request's Host header.
    var origin: String { config.publicURL ?? "" }

    /// The prefix of URLs in WMTS capabilities, whose clients (GDAL, QGIS) need absolute URLs: the
    /// public origin, else the listen address when it is one a client can reach, else none.
    var wmtsOrigin: String {
        if let u = config.publicURL { return u }
        let wildcard = ["0.0.0.0", "::", "[::]", ""].contains(config.host)
        guard !wildcard, config.port > 0 else { return "" }
        let host = config.host.contains(":") && !config.host.hasPrefix("[") ? "[\(config.host)]" : config.host
        return "http://\(host):\(config.port)"
    }

    /// A JSON response, gzip-compressed when the client accepts it and it is worth it.
    func json(_ object: some Encodable, request: Request) -> Response {
        JSONReply.make(object, request: request)
    }
}
