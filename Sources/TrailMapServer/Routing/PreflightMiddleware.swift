import HTTPTypes
import Hummingbird

/// CORS for the public routes: answers every `OPTIONS` preflight (any path but `/admin/`) and
/// adds `Access-Control-Allow-Origin: *` to answers that lack it. The admin routes are not
/// meant for browsers and get neither.
struct PreflightMiddleware: RouterMiddleware {
    typealias Context = TrailMapRequestContext

    /// Whether the store API (and its write methods) is served.
    let storeEnabled: Bool

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let admin = request.uri.path.hasPrefix("/admin/")
        if request.method == .options, !admin { return preflight }
        var response = try await next(request, context)
        if !admin, response.headers[.accessControlAllowOrigin] == nil {
            response.headers[.accessControlAllowOrigin] = "*"
        }
        return response
    }

    var preflight: Response {
        Response(
            status: .noContent,
            headers: [
                .accessControlAllowOrigin: "*",
                .accessControlAllowMethods: storeEnabled ? "GET, HEAD, POST, PUT, DELETE, OPTIONS" : "GET, HEAD, OPTIONS",
                .accessControlAllowHeaders: "Authorization, Content-Type, If-None-Match, Range, If-Range",
                .accessControlMaxAge: "86400"
            ])
    }
}
