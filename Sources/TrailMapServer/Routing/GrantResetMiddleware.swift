import Hummingbird

/// Clears the paid tiles' grants (`TileGrants`) once a store API request that may change who may
/// read what has been answered: every method but GET and HEAD (purchases, refund notifications,
/// logouts), except the POSTs that only compute or hand out something (`readOnly`). Such a change
/// then holds on this server from its answer on. A route added later clears them unless listed.
struct GrantResetMiddleware: RouterMiddleware {
    typealias Context = TrailMapRequestContext

    let grants: TileGrants?

    /// POST routes that change no account, session or purchase: an elevation profile, an area's
    /// quote, a tile token or a download link for what the caller already owns.
    static let readOnly: Set<String> = ["/api/v1/profile", "/api/v1/areas/quotes", "/api/v1/tile-tokens", "/api/v1/download-links"]

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let grants, request.method != .get, request.method != .head, !Self.readOnly.contains(request.uri.path) else {
            return try await next(request, context)
        }
        defer { grants.clear() }
        return try await next(request, context)
    }
}
