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

    /// The body of `POST /admin/memory-pressure`.
    struct PressureRequest: Decodable { var level: String }

    /// `POST /admin/memory-pressure`
    func adminMemoryPressure(_ request: Request) async throws -> Response {
        let body = try await request.body.collect(upTo: 4096)
        guard let asked = try? JSONDecoder().decode(PressureRequest.self, from: Data(body.readableBytesView)),
            let level = MemoryPressureLevel(rawValue: asked.level)
        else {
            throw APIError.badRequest("send {\"level\": \"normal\"}, {\"level\": \"warning\"} or {\"level\": \"critical\"}")
        }
        let cache = registry.cache
        cache.pressure.force(level)
        return json(Self.document(cache.snapshot), request: request)
    }

    /// The JSON of `/admin/cache`.
    static func document(_ c: CacheSnapshot) -> CacheReport { CacheReport(c) }
}
