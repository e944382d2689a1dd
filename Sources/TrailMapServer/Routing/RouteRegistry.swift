import Hummingbird

/// What the router was told, for the middleware: the metrics label of each registered path and
/// the methods each path allows. Filled while the router is built, only read afterwards
/// (`ServerRoutes`); unregistered paths count as `other`.
final class RouteRegistry: @unchecked Sendable {
    // Written only by `ServerRoutes.router(for:)` before the router serves its first request.
    private var byEndpoint: [String: Route] = [:]
    private var allowed: [(components: [Substring], allow: String)] = []

    func set(_ route: Route, for path: RouterPath) { byEndpoint[path.description] = route }

    func route(endpoint: String?) -> Route { endpoint.flatMap { byEndpoint[$0] } ?? .other }

    /// Records the `Allow` value of a path pattern (`:name` matches one component, `**` the rest).
    func allow(_ allow: String, for path: String) {
        allowed.append((path.split(separator: "/"), allow))
    }

    /// The `Allow` value of the registered path that `path` matches, if any.
    func allow(forPath path: String) -> String? {
        let parts = path.split(separator: "/")
        return allowed.first { Self.matches(parts, $0.components) }?.allow
    }

    private static func matches(_ parts: [Substring], _ pattern: [Substring]) -> Bool {
        var i = 0
        for component in pattern {
            if component == "**" { return true }
            guard i < parts.count, component.hasPrefix(":") || component == parts[i] else { return false }
            i += 1
        }
        return i == parts.count
    }
}
