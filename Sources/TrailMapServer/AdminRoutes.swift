import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import TileCache

/// The admin routes, behind `Authorization: Bearer <admin token>` (`AdminAuthMiddleware`):
/// `GET /admin/cache` (live cache figures) and `POST /admin/memory-pressure` with
/// `{"level": "normal" | "warning" | "critical"}` (forces a level; `normal` lifts it).
/// Without a configured token they do not exist (404).
extension TileResponder {
    /// `GET /admin/cache`
    func adminCache(_ request: Request) -> Response {
        json(Self.document(registry.cache.snapshot), request: request)
    }

    /// `POST /admin/memory-pressure`
    func adminMemoryPressure(_ request: Request) async throws -> Response {
        let body = try await request.body.collect(upTo: 4096)
        guard let object = try? JSONSerialization.jsonObject(with: Data(body.readableBytesView)) as? [String: Any],
              let name = object["level"] as? String, let level = MemoryPressureLevel(rawValue: name) else {
            throw APIError.badRequest("send {\"level\": \"normal\"}, {\"level\": \"warning\"} or {\"level\": \"critical\"}")
        }
        let cache = registry.cache
        cache.pressure.force(level)
        return json(Self.document(cache.snapshot), request: request)
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
}
