import Hummingbird
import Logging

/// The outermost middleware of every routed request: times it, counts it in
/// `trailmap_http_requests_total` under its route's label, logs one line, and drops the body of
/// an answer to HEAD (errors included). Errors never reach it: `APIErrorMiddleware` sits inside.
struct RequestMetricsMiddleware: RouterMiddleware {
    typealias Context = TrailMapRequestContext

    let metrics: ServerMetrics
    let logger: Logger
    let labels: RouteRegistry

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        var response = try await next(request, context)
        let bodyBytes = response.body.contentLength ?? 0
        let head = request.method == .head
        if head { response = response.createHeadResponse() }
        let elapsed = ContinuousClock.now - start
        metrics.record(
            route: labels.route(endpoint: context.endpointPath), status: response.status.code,
            bodyBytes: head ? 0 : bodyBytes, duration: elapsed)
        logger.info("\(request.method) \(request.uri.path) \(response.status.code) \(bodyBytes)B \(elapsed)")
        return response
    }
}
