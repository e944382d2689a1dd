import Essentials
import HTTPTypes
import Hummingbird

/// Guards the `/admin/` routes: 404 when no admin token is configured (the routes are off),
/// 401 without a bearer token, 403 with a wrong one (compared in constant time).
struct AdminAuthMiddleware: RouterMiddleware {
    typealias Context = TrailMapRequestContext

    /// The configured admin token; nil or empty turns the admin routes off.
    let token: String?

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let token, !token.isEmpty else {
            throw APIError.notFound("not_found", "the admin routes are off: the server was started without an admin token")
        }
        guard let auth = request.headers[.authorization], auth.hasPrefix("Bearer ") else {
            var e = APIError(.unauthorized, code: "unauthorized", message: "send the admin token as 'Authorization: Bearer TOKEN'")
            e.headers[.wwwAuthenticate] = "Bearer"
            throw e
        }
        guard ConstantTime.equal(Array(auth.dropFirst(7).utf8), Array(token.utf8)) else {
            throw APIError(.forbidden, code: "forbidden", message: "the admin token is wrong")
        }
        return try await next(request, context)
    }
}
