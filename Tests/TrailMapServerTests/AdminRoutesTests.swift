import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing
import TileCache
import TileGeometry
@testable import TrailMapServer
import TrailMapTestSupport

/// `/admin/...` and the cache's metrics, through a real server on an ephemeral port.
@Suite struct AdminRoutesTests {
    let fixture = ServerFixture()

    func app(token: String? = "s3cret", _ configure: (inout ServerConfiguration) -> Void = { _ in }) -> Application<TileResponder> {
        var config = ServerConfiguration(tilesDirectory: fixture.dir.path)
        config.port = 0
        config.adminToken = token
        config.cache.pressure = PressureSettings(cgroupDirectory: nil)
        config.cache.pressure.pressureFile = nil
        configure(&config)
        return TileServer.makeApplication(config: config)
    }

    static func json(_ buffer: ByteBuffer) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(Array(buffer: buffer))) as? [String: Any]) ?? [:]
    }

    @Test func adminRoutesAreOffWithoutAToken() async throws {
        try await app(token: nil).test(.live) { client in
            let r = try await client.execute(uri: "/admin/cache", method: .get, headers: [.authorization: "Bearer x"])
            #expect(r.status == .notFound)
            #expect((Self.json(r.body)["error"] as? [String: Any])?["message"] as? String != nil)
        }
    }

    @Test func adminRoutesNeedTheToken() async throws {
        try await app().test(.live) { client in
            #expect(try await client.execute(uri: "/admin/cache", method: .get).status == .unauthorized)
            let wrong = try await client.execute(uri: "/admin/cache", method: .get, headers: [.authorization: "Bearer nope"])
            #expect(wrong.status == .forbidden)
            let post = try await client.execute(
                uri: "/admin/memory-pressure", method: .post,
                body: ByteBuffer(string: #"{"level":"critical"}"#))
            #expect(post.status == .unauthorized)
        }
    }

    @Test func cacheFiguresAndForcedPressure() async throws {
        try fixture.bundle("co")
        let auth: HTTPFields = [.authorization: "Bearer s3cret"]
        try await app().test(.live) { client in
            let tile = "/tiles/co/3/1/3.png"
            #expect(try await client.execute(uri: tile, method: .get).status == .ok)
            #expect(try await client.execute(uri: tile, method: .get).status == .ok)
            var stats = Self.json(try await client.execute(uri: "/admin/cache", method: .get, headers: auth).body)
            #expect(stats["entries"] as? Int == 1 && stats["hits"] as? Int == 1 && stats["misses"] as? Int == 1)
            #expect(stats["policy"] as? String == CacheConfiguration().policy.rawValue)
            #expect((stats["bundles"] as? [String: Any])?["open"] as? Int == 1)
            let likely = stats["likely"] as? [String: Any]
            #expect(likely?["bytes"] as? Int == 0 && likely?["chance_keys"] as? Int == 0, "one request of one tile gives no chance")
            let sessions = (stats["prefetch"] as? [String: Any])?["sessions"] as? [String: Any]
            #expect(sessions?["tracked"] as? Int == 1 && sessions?["predicted"] as? Int != nil)

            let bad = try await client.execute(
                uri: "/admin/memory-pressure", method: .post, headers: auth,
                body: ByteBuffer(string: #"{"level":"panic"}"#))
            #expect(bad.status == .badRequest)
            let r = try await client.execute(
                uri: "/admin/memory-pressure", method: .post, headers: auth,
                body: ByteBuffer(string: #"{"level":"critical"}"#))
            #expect(r.status == .ok)
            stats = Self.json(r.body)
            #expect(stats["entries"] as? Int == 0)
            #expect((stats["memory_pressure"] as? [String: Any])?["level"] as? String == "critical")
            #expect((stats["bundles"] as? [String: Any])?["open"] as? Int == 0, "idle bundles closed")

            let metrics = String(buffer: try await client.execute(uri: "/metrics", method: .get).body)
            #expect(metrics.contains("trailmap_memory_pressure_level 2"))
            #expect(metrics.contains(#"trailmap_cache_evictions_total{kind="tile",reason="pressure"} 1"#))
            #expect(metrics.contains(#"trailmap_cache_evictions_total{kind="bundle",reason="pressure"} 1"#))

            let normal = try await client.execute(
                uri: "/admin/memory-pressure", method: .post, headers: auth,
                body: ByteBuffer(string: #"{"level":"normal"}"#))
            #expect((Self.json(normal.body)["memory_pressure"] as? [String: Any])?["level"] as? String == "normal")
            #expect(try await client.execute(uri: tile, method: .get).status == .ok, "the bundle reopens")
        }
    }

    @Test func metricsShowTheCache() async throws {
        try fixture.bundle("co")
        try await app(token: nil, { $0.cache.budget = 8 << 20 }).test(.live) { client in
            for _ in 0..<3 { _ = try await client.execute(uri: "/tiles/co/3/1/3.png", method: .get) }
            let text = String(buffer: try await client.execute(uri: "/metrics", method: .get).body)
            #expect(text.contains("trailmap_cache_budget_bytes 8388608"))
            #expect(text.contains("trailmap_cache_hits_total 2"))
            #expect(text.contains("trailmap_cache_misses_total 1"))
            #expect(text.contains("trailmap_cache_entries 1"))
            #expect(text.contains("trailmap_bundles_open 1"))
            for name in [
                "trailmap_cache_bytes", "trailmap_cache_single_flight_joins_total", "trailmap_cache_prefetches_issued_total",
                "trailmap_cache_prefetches_used_total", "trailmap_cache_prefetches_rejected_total", "trailmap_memory_pressure_level"
            ] {
                #expect(text.contains(name), "\(name) missing")
            }
            // The default policy weighs chances (none given by one tile asked for again); one
            // client (this test's address).
            #expect(text.contains("trailmap_cache_likely_bytes 0"))
            #expect(text.contains("trailmap_cache_chance_keys 0"))
            #expect(!text.contains("trailmap_cache_expected"))
            #expect(text.contains(#"trailmap_prefetch_sessions{state="tracked"} 1"#))
            #expect(text.contains(#"trailmap_prefetch_sessions{state="repeating"} 0"#))
        }
        // LRU weighs no chances, and without prefetch no sessions are tracked.
        try await app(
            token: "s3cret",
            {
                $0.cache.policy = .lru; $0.cache.prefetch = false
            }
        ).test(.live) { client in
            _ = try await client.execute(uri: "/tiles/co/3/1/3.png", method: .get)
            let text = String(buffer: try await client.execute(uri: "/metrics", method: .get).body)
            #expect(text.contains("trailmap_cache_hits_total") && !text.contains("trailmap_cache_likely_bytes"))
            #expect(!text.contains("trailmap_prefetch_sessions"))
            let stats = Self.json(
                try await client.execute(uri: "/admin/cache", method: .get, headers: [.authorization: "Bearer s3cret"]).body)
            #expect(stats["policy"] as? String == "lru" && stats["likely"] == nil)
            #expect((stats["prefetch"] as? [String: Any])?["sessions"] == nil)
        }
    }

    @Test func bundlesOpenOnFirstRequest() async throws {
        try fixture.bundle("a")
        try fixture.bundle("b")
        try await app { $0.cache.maxOpenBundles = 1 }.test(.live) { client in
            let auth: HTTPFields = [.authorization: "Bearer s3cret"]
            var bundles =
                Self.json(try await client.execute(uri: "/admin/cache", method: .get, headers: auth).body)["bundles"] as? [String: Any]
            #expect(bundles?["open"] as? Int == 0, "nothing opened at scan")
            #expect(try await client.execute(uri: "/tiles/a/3/1/3.png", method: .get).status == .ok)
            #expect(try await client.execute(uri: "/tiles/b/3/1/3.png", method: .get).status == .ok)
            bundles =
                Self.json(try await client.execute(uri: "/admin/cache", method: .get, headers: auth).body)["bundles"] as? [String: Any]
            #expect(bundles?["open"] as? Int == 1)
            #expect((bundles?["closed"] as? [String: Any])?["capacity"] as? Int == 1)
        }
    }
}
