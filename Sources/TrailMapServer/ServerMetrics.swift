import Prometheus
import Synchronization

/// The server's Prometheus metrics: requests by route and status, latency, bytes, tiles.
public final class ServerMetrics: Sendable {
    public let registry: PrometheusCollectorRegistry
    private let requests = Mutex<[RouteStatus: Counter]>([:])
    private let latency = Mutex<[Route: DurationHistogram]>([:])
    private let bytes: Counter
    private let tiles: Counter
    private let notModified: Counter

    static let buckets: [Duration] = [.microseconds(100), .microseconds(250), .microseconds(500), .milliseconds(1),
                                      .milliseconds(2.5), .milliseconds(5), .milliseconds(10), .milliseconds(25),
                                      .milliseconds(50), .milliseconds(100), .milliseconds(250), .seconds(1)]

    public init(registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry()) {
        self.registry = registry
        bytes = registry.makeCounter(name: "trailmap_http_response_bytes_total", help: "Bytes of response bodies sent.")
        tiles = registry.makeCounter(name: "trailmap_tiles_served_total", help: "Tiles answered with 200.")
        notModified = registry.makeCounter(name: "trailmap_tiles_not_modified_total", help: "Tile requests answered 304.")
    }

    /// Records one request.
    func record(route: Route, status: Int, bodyBytes: Int, duration: Duration) {
        let key = RouteStatus(route: route, status: status)
        let counter = requests.withLock { map in
            if let c = map[key] { return c }
            let c = registry.makeCounter(name: "trailmap_http_requests_total",
                                         labels: [("route", route.rawValue), ("status", String(status))],
                                         help: "HTTP requests by route and status.")
            map[key] = c
            return c
        }
        counter.increment()
        let histogram = latency.withLock { map in
            if let h = map[route] { return h }
            let h = registry.makeDurationHistogram(name: "trailmap_http_request_duration_seconds",
                                                   labels: [("route", route.rawValue)], buckets: ServerMetrics.buckets,
                                                   help: "Time to answer a request.")
            map[route] = h
            return h
        }
        histogram.record(duration)
        if bodyBytes > 0 { bytes.increment(by: Int64(bodyBytes)) }
        if route == .tile {
            if status == 200 { tiles.increment() } else if status == 304 { notModified.increment() }
        }
    }

    /// The Prometheus text exposition.
    func render() -> [UInt8] { registry.emitToBuffer() }
}

/// Key of the requests counter.
struct RouteStatus: Hashable {
    var route: Route
    var status: Int
}

/// Route labels for metrics.
enum Route: String, Sendable {
    case tile, tilejson, list, viewer, asset, metrics, health, api, download, store, other
}
