import Hummingbird

/// Refuses paths longer than 2048 bytes (400) before any route looks at them.
struct PathLimitMiddleware: RouterMiddleware {
    typealias Context = TrailMapRequestContext

    static let maxPathBytes = 2048

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard request.uri.path.utf8.count <= Self.maxPathBytes else { throw APIError.badRequest("the path is too long") }
        return try await next(request, context)
    }
}
