import Catalog
import Hummingbird
import Logging

/// Turns every error of a route into its JSON answer (`{"error": {"code", "message"}}`):
/// `APIError` as it is, a catalog error through its HTTP status (`APIError(_:CatalogError)`),
/// Hummingbird's "no route" as a JSON 404 naming the path (a 405 when the path is known),
/// anything else as a logged 500.
struct APIErrorMiddleware: RouterMiddleware {
    typealias Context = TrailMapRequestContext

    let logger: Logger
    /// The registered paths' methods: a known path asked with a method the router has no
    /// route for (QUERY, a made-up one) is a 405, not a 404.
    let routes: RouteRegistry

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch {
            if let e = error as? HTTPError, e.status == .notFound, let allow = routes.allow(forPath: request.uri.path) {
                var notAllowed = APIError(
                    .methodNotAllowed, code: "method_not_allowed",
                    message: "\(request.method) is not allowed on \(request.uri.path.prefix(200)); use \(allow)")
                notAllowed.headers[.allow] = allow
                return try notAllowed.response(from: request, context: context)
            }
            return try Self.apiError(for: error, request: request, logger: logger).response(from: request, context: context)
        }
    }

    static func apiError(for error: any Error, request: Request, logger: Logger) -> APIError {
        if let answer = APIError(thrown: error) { return answer }
        switch error {
        case let e as HTTPError where e.status == .notFound:
            let path = request.uri.path.prefix(200)
            return path.hasPrefix("/api/v1/")
                ? APIError.notFound("not_found", "no API route \(path); see /api/v1/openapi.json")
                : APIError.notFound("not_found", "no such page: \(path)")
        case let e as HTTPError:
            return APIError(e.status, code: "http_\(e.status.code)", message: e.body ?? e.status.reasonPhrase)
        default:
            logger.error("unexpected error on \(request.uri.path): \(error)")
            return APIError(.internalServerError, code: "internal", message: "internal error")
        }
    }
}
