import Essentials
import Synchronization

/// The anonymous `GET /api/v1/catalog` body (JSON and gzip), kept until the catalog changes:
/// it is rebuilt when `CatalogStore.changeStamp()` moves, which any commit does, in this
/// process or another. Signed-in listings (statuses per account and device) are built per request.
final class CatalogResponseCache: Sendable {
    struct Body: Sendable {
        let stamp: Int
        let json: [UInt8]
        let gzip: [UInt8]?
    }

    private let body = Mutex<Body?>(nil)

    /// The body for `stamp`: the kept one if it was built for the same stamp, else `build()`'s
    /// JSON (compressed once), kept for the next requests.
    func body(stamp: Int, build: () async throws -> [UInt8]) async rethrows -> Body {
        if let kept = body.withLock({ $0 }), kept.stamp == stamp { return kept }
        let json = try await build()
        let fresh = Body(stamp: stamp, json: json, gzip: json.count >= 64 ? Gzip.compress(json) : nil)
        body.withLock { $0 = fresh }
        return fresh
    }
}
