import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import TileCache

/// The admin routes, behind `Authorization: Bearer <admin token>`:
/// `GET /admin/cache` (live cache figures) and `POST /admin/memory-pressure` with
/// `{"level": "normal" | "warning" | "critical"}` (forces a level; `normal` lifts it).
/// Without a configured token they do not exist (404).
extension TileResponder {
    func admin(_ request: Request, route: inout Route) async throws -> Response {
        route = .admin
        guard let token = config.adminToken, !token.isEmpty else {
            throw APIError.notFound("not_found", "the admin routes are off: start the server with --admin-token or TRAILMAP_ADMIN_TOKEN")
        }
        guard let auth = request.headers[.authorization], auth.hasPrefix("Bearer ") else {
            var e = APIError(.unauthorized, code: "unauthorized", message: "send the admin token as 'Authorization: Bearer TOKEN'")
            e.headers[.wwwAuthenticate] = "Bearer"
            throw e
        }
        guard Self.constantTimeEqual(Array(auth.dropFirst(7).utf8), Array(token.utf8)) else {
            throw APIError(.forbidden, code: "forbidden", message: "the admin token is wrong")
        }
        let cache = registry.cache
        switch (request.uri.path, request.method) {
        case ("/admin/cache", .get), ("/admin/cache", .head):
            return json(Self.document(cache.snapshot), request: request)
        case ("/admin/memory-pressure", .post):
            let body = try await request.body.collect(upTo: 4096)
            guard let object = try? JSONSerialization.jsonObject(with: Data(body.readableBytesView)) as? [String: Any],
                  let name = object["level"] as? String, let level = MemoryPressureLevel(rawValue: name) else {
                throw APIError.badRequest("send {\"level\": \"normal\"}, {\"level\": \"warning\"} or {\"level\": \"critical\"}")
            }
            cache.pressure.force(level)
            return json(Self.document(cache.snapshot), request: request)
        case ("/admin/cache", _), ("/admin/memory-pressure", _):
            let allowed = request.uri.path == "/admin/cache" ? "GET, HEAD" : "POST"
            var e = APIError(.methodNotAllowed, code: "method_not_allowed", message: "\(request.method) is not allowed here; use \(allowed)")
            e.headers[.allow] = allowed
            throw e
        default:
            throw APIError.notFound("not_found", "no such admin route: \(request.uri.path.prefix(200))")
        }
    }

    /// The JSON of `/admin/cache`.
    static func document(_ c: CacheSnapshot) -> [String: Any] {
        let s = c.statistics
        var pressure: [String: Any] = ["level": c.level.rawValue, "measured": c.measuredLevel.rawValue]
        if let forced = c.forcedLevel { pressure["forced"] = forced.rawValue }
        if let v = c.reading.current { pressure["memory_current"] = v }
        if let v = c.reading.limit { pressure["memory_limit"] = v }
        if let v = c.reading.someAvg10 { pressure["psi_some_avg10"] = v }
        if let v = c.reading.fullAvg10 { pressure["psi_full_avg10"] = v }
        return [
            "policy": s.policy,
            "budget_bytes": s.budget,
            "capacity_bytes": s.capacity,
            "bytes": s.bytes,
            "reserved_bytes": s.reservedBytes,
            "entries": s.entries,
            "hits": s.hits,
            "misses": s.misses,
            "hit_ratio": s.hitRatio,
            "single_flight_joins": s.joins,
            "loads": s.loads,
            "evictions": Dictionary(uniqueKeysWithValues: EvictionReason.allCases.map { ($0.rawValue, s.evictions[$0] ?? 0) }),
            "prefetch": ["enabled": c.prefetch, "issued": s.prefetchesIssued, "used": s.prefetchesUsed,
                         "rejected": s.prefetchesRejected],
            "bundles": ["open": c.openBundles, "max_open": c.maxOpenBundles, "opened": c.bundleOpens,
                        "closed": Dictionary(uniqueKeysWithValues: EvictionReason.allCases.map { ($0.rawValue, c.bundleCloses[$0] ?? 0) })],
            "memory_pressure": pressure,
        ]
    }

    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var diff: UInt8 = 0
        for i in a.indices { diff |= a[i] ^ b[i] }
        return diff == 0
    }
}
