import Catalog
import Foundation
import Hummingbird
import Logging
import NIOPosix
import Synchronization
import TrailMapAPI

/// Which tilesets are paid, and who may read them: an entitled account's bearer token or a
/// tile token (`?token=`). The paid set is re-read from the catalog at most once a second, so
/// products published while the server runs are protected at once.
///
/// With a store, a tileset is public only when a free product sells it or the operator names it
/// (`publicTilesets`). Every other one is closed: a paid product's to its buyers, and one that
/// no region product sells (a bundle areas are cut from, or one nobody claims) to everyone
/// (`closedProduct`).
final class TileAccess: Sendable {
    private let catalog: any CatalogStore
    private let tokens: TileTokens
    /// Credentials accepted lately, which the tile loops check without the catalog.
    let grants: TileGrants
    /// Tilesets the operator makes public although no free product sells them.
    private let publicTilesets: Set<String>
    private let metrics: ServerMetrics?
    private let logger: Logger
    /// The product id standing for "no product sells this tileset on its own": nobody is entitled to it.
    static let closedProduct = ""
    /// The product id standing for "area products cut from this tileset, nothing sells it whole":
    /// nobody is entitled to it, but its preview zooms are open (a picture of what an area buys).
    /// Not a valid product id, so no product can be it.
    static let areaSourceProduct = "*area-source"
    /// The paid map (nil until a read succeeds), when it was read, and until when it holds although
    /// stale because the last read failed.
    private let paid = Mutex(PaidMap())
    /// How long the paid map holds; the fast path asks for a re-read once half of it has passed,
    /// so that a busy server's map is renewed before the fast path finds it stale.
    static let mapLifetime = Duration.seconds(1)
    /// After a read of the paid map that failed (the catalog is down), how long the last map read
    /// stays in force, stale, before the catalog is asked again.
    static let retryDelay = Duration.milliseconds(250)
    /// The catalog reads tile-loop requests wait for, while they run: requests waiting for the
    /// same one (the paid map, or one credential's check for one product) share it.
    private let sharedReads = Mutex<[SharedRead: Task<APIError?, Never>]>([:])

    /// What a shared read reads and, for a credential's check, the grants' generation when the
    /// requests sharing it arrived: a request that arrives after a change (`TileGrants.clear`)
    /// starts a check of its own rather than join one whose refusal will not be kept.
    private struct SharedRead: Hashable {
        let wait: CatalogWait
        let generation: Int
    }

    /// The paid map as last read.
    private struct PaidMap {
        var map: AccessMap?
        var at = ContinuousClock.now - .seconds(10)
        /// No read is tried before then: the last one failed.
        var retryAt = ContinuousClock.now - .seconds(10)
        /// Reads that failed since the last that did not.
        var failures = 0

        /// The map, if read, when it is younger than `maxAge` or a failed read keeps it in force.
        func holding(maxAge: Duration, now: ContinuousClock.Instant) -> AccessMap? {
            at > now - maxAge || now < retryAt ? map : nil
        }
    }

    /// Who may read which tileset, as last read from the catalog.
    struct AccessMap: Sendable {
        /// Paid tileset → the product whose buyers may read it.
        var paid: [String: String] = [:]
        /// Tilesets free products sell, and those the operator makes public.
        var open: Set<String> = []
        /// Tilesets area products cut from.
        var areaSources: Set<String> = []

        /// The product guarding `tileset`: nil when it is public, `areaSourceProduct` when only area
        /// products cut from it, `closedProduct` when no product sells it.
        func product(for tileset: String) -> String? {
            if let p = paid[tileset] { return p }
            if open.contains(tileset) { return nil }
            return areaSources.contains(tileset) ? TileAccess.areaSourceProduct : TileAccess.closedProduct
        }
    }

    /// Catalog reads made for the paid map, and how many of them ran on an event loop (tests:
    /// there must be none; a read there would stall every connection of that loop).
    let reads = Atomic<Int>(0)
    let readsOnEventLoop = Atomic<Int>(0)
    /// Checks of a credential against the catalog (tests: waiters share them).
    let checks = Atomic<Int>(0)

    /// `metrics` counts the paid map's failed reads; `logger` tells when the catalog cannot be
    /// read and when it can again.
    init(
        catalog: any CatalogStore, tokens: TileTokens, publicTilesets: Set<String> = [], grantLifetime: Duration = .zero,
        metrics: ServerMetrics? = nil, logger: Logger = Logger(label: "trailmap.access")
    ) {
        self.catalog = catalog
        self.tokens = tokens
        grants = TileGrants(lifetime: grantLifetime)
        self.publicTilesets = publicTilesets
        self.metrics = metrics
        self.logger = logger
    }

    /// The product id of a paid tileset, or nil when the tileset is public, from the paid map
    /// as last read, without reading the catalog (the event loop's fast path and the tile
    /// route's own check). A map older than `mapLifetime` is `StaleAccessMap` unless `allowStale`
    /// (the caller has just tried `paidProduct`, or a fast-path request has just waited for a read
    /// of the map) or the last read failed less than `retryDelay` ago. A map never read is a 503
    /// with `allowStale`, except `onEventLoop`, where it is always `StaleAccessMap` (the fast
    /// path answers the 503 its read brought back, `read`). A map past half its lifetime is
    /// re-read off the caller's thread (one re-read at a time, none within `retryDelay` of a
    /// failed one).
    func cachedPaidProduct(tileset: String, allowStale: Bool = false, onEventLoop: Bool = false) throws -> String? {
        let now = ContinuousClock.now
        let state = paid.withLock { $0 }
        guard let map = state.map else {
            if allowStale, !onEventLoop { throw Self.neverRead }
            throw StaleAccessMap()
        }
        if state.holding(maxAge: Self.mapLifetime / 2, now: now) == nil { rereadSoon() }
        guard allowStale || state.holding(maxAge: Self.mapLifetime, now: now) != nil else { throw StaleAccessMap() }
        return map.product(for: tileset)
    }

    /// Re-reads the paid map off the caller's thread, unless a read of it is running.
    private func rereadSoon() {
        _ = sharedRead(.paidMap)
    }

    /// The product id of a paid tileset, or nil when the tileset is public, re-reading the paid
    /// map when it is older than a second. Fails closed: while the catalog has never been read,
    /// no tileset counts as public (503); after a failed re-read the last map read stays in force,
    /// and the catalog is not asked again for `retryDelay`.
    func paidProduct(tileset: String) async throws -> String? {
        try await accessMap().product(for: tileset)
    }

    /// Who may read which tileset (see `paidProduct`): the map as last read, unless it is older
    /// than `maxAge` and no read failed within `retryDelay`.
    func accessMap(maxAge: Duration = mapLifetime) async throws -> AccessMap {
        let now = ContinuousClock.now
        let state = paid.withLock { $0 }
        if let hit = state.holding(maxAge: maxAge, now: now) { return hit }
        if now < state.retryAt { throw Self.neverRead }
        reads.add(1, ordering: .relaxed)
        if MultiThreadedEventLoopGroup.currentEventLoop != nil { readsOnEventLoop.add(1, ordering: .relaxed) }
        let read: Result<AccessMap, any Error>
        do {
            read = .success(Self.map(try await catalog.products(), publicTilesets: publicTilesets))
        } catch {
            read = .failure(error)
        }
        let (map, failures) = paid.withLock { state -> (AccessMap?, Int) in
            let before = state.failures
            switch read {
            case let .success(fresh):
                (state.map, state.at, state.failures) = (fresh, now, 0)
            case .failure:
                state.retryAt = .now + Self.retryDelay
                state.failures += 1
            }
            return (state.map, before)
        }
        switch read {
        case let .failure(error):
            metrics?.recordPaidMapReadFailure()
            if failures == 0 {
                let kept = map == nil ? "no tile of a store is served until it can" : "the list last read stays in force"
                logger.warning(
                    "the catalog cannot be read for which tilesets are paid (\(error)); \(kept), asked again every \(Self.retryDelay)")
            }
        case .success where failures > 0:
            logger.notice("the catalog can be read again for which tilesets are paid, after \(failures) failed reads")
        case .success:
            break
        }
        guard let map else { throw Self.neverRead }
        return map
    }

    /// The access map of `products`: a free region product's tileset is open unless a paid
    /// product sells it too; a bundle an area product cuts from is never open by being one (only
    /// its preview zooms are, `areaSourceProduct`).
    static func map(_ products: [Product], publicTilesets: Set<String>) -> AccessMap {
        var m = AccessMap(open: publicTilesets)
        for p in products {
            if let offer = p.areaOffer { m.areaSources.formUnion(offer.tilesets); continue }
            if p.free { m.open.insert(p.tileset) } else { m.paid[p.tileset] = p.id }
        }
        return m
    }

    private static var neverRead: APIError {
        var e = APIError.unavailable("the catalog cannot be read, so which regions are paid is unknown: no tile is served until it can")
        e.headers[.retryAfter] = "1"
        return e
    }

    /// Throws 401/403 unless the request may read a tile of `productID`; returns the tag of the
    /// login session the credential belongs to (a tile token's, or the bearer token's), which
    /// names the buyer's map session for prefetch.
    @discardableResult
    func authorize(_ request: Request, productID: String) async throws -> String {
        let presented: TileGrants.Credential?
        if let token = request.uri.queryParameters["token"].map(String.init) {
            presented = TileGrants.Credential(kind: .token, text: token)
        } else {
            presented = StoreAPI.bearer(request).map { TileGrants.Credential(kind: .bearer, text: $0) }
        }
        if let refusal = Self.refusal(productID: productID, presented: presented != nil) { throw refusal }
        guard let presented else { throw Self.noCredential }
        if let grant = grants.session(presented, product: productID) {
            if grant.renew { renew(presented, productID: productID) }
            return grant.session
        }
        return try await check(presented, productID: productID)
    }

    /// The refusal of a tile of `productID` that no catalog read can change: a tileset nobody
    /// may buy whole (403), or a paid one asked for without a credential (`presented` false, 401);
    /// nil when the credential must be checked. `authorize` and the fast path both refuse with it.
    static func refusal(productID: String, presented: Bool) -> APIError? {
        if productID == areaSourceProduct {
            return APIError(
                .forbidden, code: "tileset_not_public",
                message: "this tileset is sold by the area: buy an area of it (its lowest zooms are a preview)")
        }
        if productID == closedProduct {
            return APIError(
                .forbidden, code: "tileset_not_public",
                message: "this tileset is not sold on its own: buy the region or area that holds it")
        }
        return presented ? nil : noCredential
    }

    private static var noCredential: APIError {
        APIError(.unauthorized, code: "unauthorized", message: "this region is paid: send a bearer token or a tile token (?token=)")
    }

    /// The answer to a credential the catalog refused (`check`'s error) when it is a refusal, 401
    /// or 403, as Hummingbird's path renders it; nil for anything else (the catalog could not
    /// answer), which Hummingbird's path tries again.
    static func refusal(of error: any Error) -> APIError? {
        guard let answer = APIError(thrown: error) else { return nil }
        return answer.status == .unauthorized || answer.status == .forbidden ? answer : nil
    }

    /// Asks the catalog whether `credential` may read `productID`'s tiles; records a grant when it
    /// may. Returns the credential's login session tag; throws 401/403 when it may not.
    private func check(_ presented: TileGrants.Credential, productID: String) async throws -> String {
        checks.add(1, ordering: .relaxed)
        let generation = grants.generation
        let accountID: String
        let session: String
        switch presented.kind {
        case .token:
            guard let holder = try await tokens.holder(of: presented.text, productID: productID) else {
                throw APIError(
                    .unauthorized, code: "invalid_tile_token", message: "the tile token is invalid, expired or for another region")
            }
            guard try await catalog.sessionIsLive(tag: holder.session, accountID: holder.accountID) else {
                throw APIError(
                    .unauthorized, code: "invalid_tile_token",
                    message: "the session that asked for this tile token has ended (logged out or expired)")
            }
            (accountID, session) = (holder.accountID, holder.session)
        case .bearer:
            accountID = try await catalog.authenticate(token: presented.text).id
            session = AccountRules.sessionTag(token: presented.text)
        }
        guard try await catalog.isEntitled(accountID: accountID, productID: productID) else {
            throw APIError(CatalogError.notEntitled(productID))
        }
        grants.grant(presented, product: productID, session: session, generation: generation)
        return session
    }

    /// Reads what a fast-path request waits for (`FastTileAnswer.Outcome.waitForCatalog`): a
    /// credential's grant, recorded when the catalog accepts it, or the paid map. Returns the
    /// refusal the fast path answers itself: a credential the catalog refused (`refusal(of:)`), or
    /// the 503 of a paid map the catalog has never given (`accessMap`'s). Otherwise nil: the
    /// request is answered, or, when the catalog could not check a credential, left to
    /// Hummingbird's path, which says why. Requests waiting for the same read share it, and the
    /// paid map's background re-read (`rereadSoon`) with them.
    ///
    /// Whatever a request takes from a read holds from its arrival on, as on Hummingbird's path,
    /// which reads for itself: a refusal is kept only if no change to accounts or purchases went
    /// through this server while the check ran (`TileGrants.clear`; a request that arrives after
    /// such a change starts a check of its own), and a map from a read that
    /// began more than `mapLifetime` before the request arrived (a slow catalog) is read again.
    func read(_ wait: CatalogWait) async -> APIError? {
        let asked = ContinuousClock.now
        let refusal = await sharedRead(wait).value
        guard wait == .paidMap, refusal == nil, paid.withLock({ $0.at < asked - Self.mapLifetime && $0.retryAt <= .now }) else {
            return refusal
        }
        return await sharedRead(wait).value
    }

    /// The running read for `wait`, started unless one is.
    private func sharedRead(_ wait: CatalogWait) -> Task<APIError?, Never> {
        let generation: Int
        if case .grant = wait { generation = grants.generation } else { generation = 0 }
        let key = SharedRead(wait: wait, generation: generation)
        return sharedReads.withLock { running in
            if let read = running[key] { return read }
            let read = Task { () -> APIError? in
                var refusal: APIError?
                switch wait {
                case let .grant(needed):
                    do {
                        _ = try await check(needed.credential, productID: needed.product)
                    } catch {
                        // A refusal that may predate a purchase, a refund or a logout is not kept.
                        refusal = grants.generation == generation ? Self.refusal(of: error) : nil
                    }
                case .paidMap:
                    do {
                        _ = try await accessMap(maxAge: Self.mapLifetime / 2)
                    } catch {
                        refusal = error as? APIError
                    }
                }
                sharedReads.withLock { _ = $0.removeValue(forKey: key) }
                return refusal
            }
            running[key] = read
            return read
        }
    }

    /// Checks a grant's credential again off the caller's thread (a grant in the second half of
    /// its lifetime, `TileGrants.session`): renewed when the catalog still accepts it, dropped
    /// when it refuses it, left to expire when the catalog cannot answer.
    func renew(_ credential: TileGrants.Credential, productID: String) {
        Task {
            do {
                _ = try await check(credential, productID: productID)
            } catch let error as CatalogError {
                switch error {
                case .database, .busy: break
                default: grants.revoke(credential, product: productID)
                }
            } catch {
                grants.revoke(credential, product: productID)
            }
        }
    }
}

/// The paid map needs a catalog read, which the event loop does not do.
struct StaleAccessMap: Error {}

/// What the catalog read a fast-path request waited for refused it with (`TileAccess.read`): a
/// credential's 401 or 403, or the 503 of a paid map never read. Answered on the loop for the
/// same wait only (the same credential and product, or the paid map still unread).
struct CatalogRefusal: Sendable {
    var wait: CatalogWait
    var answer: APIError
}

/// A catalog read a fast-path tile request waits for before it can be answered there.
enum CatalogWait: Hashable, Sendable {
    /// A paid tile's credential has no live grant yet.
    case grant(TileGrants.Needed)
    /// The paid map is stale.
    case paidMap

    /// What is read, as the metrics name it; a request waits at most once for each.
    enum Reason: String, CaseIterable {
        case grant
        case paidMap = "paid_map"
    }

    var reason: Reason {
        switch self {
        case .grant: .grant
        case .paidMap: .paidMap
        }
    }
}

extension StoreAPI {
    /// `POST /tile-tokens`: a short-lived token for a paid region's tile URLs.
    func tileToken(_ request: Request) async throws -> Response {
        let a = try await account(request)
        let b = try await body(TileTokenRequest.self, request)
        guard ProductFile.isValidProductID(b.productId) else {
            throw APIError(CatalogError.unknownProduct(String(b.productId.prefix(128))))
        }
        let p = try await catalog.downloadable(productID: b.productId, account: a)
        let t = try await tileTokens.issue(
            accountID: a.id, productID: p.id, session: AccountRules.sessionTag(token: Self.bearer(request) ?? ""))
        let base = publicOrigin
        return JSONReply.make(
            TileTokenGrant(
                token: t.token, expiresAt: JSONReply.time(t.expiresAt),
                tilesURL: "\(base)/tiles/\(p.tileset)/{z}/{x}/{y}.\(tileExtension(p.tileset))?token=\(t.token)"),
            status: .created, request: request, cacheControl: "no-store")
    }
}
