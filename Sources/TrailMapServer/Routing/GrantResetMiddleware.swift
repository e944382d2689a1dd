import Hummingbird

/// Clears the paid tiles' grants (`TileGrants`) once a store API request that may change who may
/// read what has been answered: every method but GET and HEAD (purchases, refunds, logouts,
/// account deletions, tile tokens). Such a change then holds on this server from its answer on.
struct GrantResetMiddleware: RouterMiddleware {
    typealias Context = TrailMapRequestContext

    let grants: TileGrants?

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let grants, request.method != .get, request.method != .head else { return try await next(request, context) }
        defer { grants.clear() }
        return try await next(request, context)
    }
}
