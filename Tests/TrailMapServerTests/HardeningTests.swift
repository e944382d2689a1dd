import Catalog
import CatalogPostgres
import CatalogSQLite
import Foundation
import GRDB
import HTTPTypes
import Hummingbird
import TileCache
import Logging
import HummingbirdTesting
import NIOCore
import Raster
import StoreVerification
import Synchronization
import Testing
import TileGeometry
import TileStore
@testable import TrailMapServer
import TrailMapTestSupport

/// Findings of the 2026-11-23 review (issue "Hardening"), each named by its number.
@Suite struct HardeningTests {
    let fixture = ServerFixture()

    func app() -> Application<TileResponder> {
        var config = ServerConfiguration(tilesDirectory: fixture.dir.path)
        config.port = 0
        return TileServer.makeApplication(config: config)
    }

    func live(_ path: ServingPath) -> LiveApp {
        var config = ServerConfiguration(tilesDirectory: fixture.dir.path)
        config.port = 0
        config.tileLoops = path.tileLoops
        let made = config
        return LiveApp { TileServer.makeApplication(config: made, onRunning: $0) }
    }

    /// Finding 4: a bundle's stored tile_id with CR/LF never reaches the response head.
    // Hardening finding 4 (docs/notes/hardening.md).
    @Test(arguments: ServingPath.allCases) func aCraftedTileIDIsNotWrittenAsTheETag(path: ServingPath) async throws {
        let file = try fixture.bundle("evil")
        let tile = WebMercator.tile(lon: -105, lat: 39, zoom: 4)
        let expected = try ServerFixture.png(tile)
        let db = try DatabaseQueue(path: file)
        try await db.write { db in
            try db.execute(sql: "PRAGMA foreign_keys = OFF")
            let id = "abc\r\nX-Injected: yes"
            let old = try String.fetchOne(
                db, sql: "SELECT tile_id FROM map WHERE zoom_level = ? AND tile_column = ? AND tile_row = ?",
                arguments: [tile.z, tile.x, (1 << tile.z) - 1 - tile.y])!
            try db.execute(sql: "UPDATE images SET tile_id = ? WHERE tile_id = ?", arguments: [id, old])
            try db.execute(sql: "UPDATE map SET tile_id = ? WHERE tile_id = ?", arguments: [id, old])
        }
        try await live(path).test { client in
            let r = try await client.execute(uri: "/tiles/evil/\(tile.z)/\(tile.x)/\(tile.y).png", method: .get)
            #expect(r.status == .ok && Array(buffer: r.body) == expected)
            #expect(r.headers[.eTag] == "\"\(TileValidator.etag(expected))\"", "the ETag is computed from the content")
            #expect(r.headers[HTTPField.Name("X-Injected")!] == nil)
        }
    }

    /// Finding 9: the pages carry a Content-Security-Policy that allows their own inline script
    /// (by hash) and nothing inline besides; the viewer has none (its script is a file of this server).
    // Hardening finding 9 (docs/notes/hardening.md).
    @Test func pagesSendAContentSecurityPolicy() async throws {
        try fixture.bundle("co")
        try await app().test(.live) { client in
            let r = try await client.execute(uri: "/", method: .get)
            let csp = try #require(r.headers[.contentSecurityPolicy])
            #expect(csp.contains("script-src 'self';"), "the viewer's script comes from this server, no inline script runs: \(csp)")
            #expect(!String(buffer: r.body).contains("<script>"))
            #expect(
                !csp.split(separator: ";").first { $0.contains("script-src") }!.contains("unsafe-inline"),
                "no inline script but the page's own")
            #expect(csp.contains("object-src 'none'") && csp.contains("frame-ancestors 'none'"))
            #expect(csp == PageSecurity.policy(for: String(buffer: r.body)), "the hash matches the page served")
        }
    }

    /// Finding 2: while the catalog cannot be read, a paid region's tiles are not served as
    /// public (503 + Retry-After, never `public` caching); once it can, they need credentials.
    // Hardening finding 2 (docs/notes/hardening.md).
    @Test(arguments: ServingPath.allCases) func paidTilesFailClosedWhileTheCatalogCannotBeRead(path: ServingPath) async throws {
        let store = try await computed { try StoreFixture() }
        let db = try DatabaseQueue(path: store.catalog.path)
        try await db.write { try $0.execute(sql: "ALTER TABLE products RENAME TO products_away") }
        let tile = WebMercator.tile(lon: -105, lat: 39, zoom: 4)
        let uri = "/tiles/co/\(tile.z)/\(tile.x)/\(tile.y).png"
        try await store.live(path).test { client in
            let r = try await client.execute(uri: uri, method: .get)
            #expect(r.status == .serviceUnavailable, "a paid tile while the catalog is unreadable: \(r.status)")
            #expect(r.headers[.retryAfter] == "1")
            #expect(r.headers[.cacheControl]?.contains("public") != true)
            try await db.write { try $0.execute(sql: "ALTER TABLE products_away RENAME TO products") }
            try await Task.sleep(for: .milliseconds(1100))
            let again = try await client.execute(uri: uri, method: .get)
            #expect(again.status == .unauthorized, "readable again: the paid region needs credentials (\(again.status))")
            let free = try await client.execute(uri: "/tiles/world/\(tile.z)/\(tile.x)/\(tile.y).png", method: .get)
            #expect(free.status == .ok && free.headers[.cacheControl]?.hasPrefix("public") == true)
        }
    }

    /// While the catalog cannot be read, it is asked again at most every `TileAccess.retryDelay`,
    /// not on every request; a map never read stays a 503 meanwhile, and a read after the catalog
    /// is back finds the paid regions. The outage is logged once, as is its end, and every failed
    /// read is counted on `/metrics`.
    @Test func anUnreadableCatalogIsAskedAgainOnlyAfterTheRetryDelay() async throws {
        let store = try await computed { try StoreFixture() }
        let db = try DatabaseQueue(path: store.catalog.path)
        try await db.write { try $0.execute(sql: "ALTER TABLE products RENAME TO products_away") }
        let log = CapturedLog()
        let config = ServerConfiguration(tilesDirectory: store.tiles.dir.path)
        let registry = TilesetRegistry(directory: config.tilesDirectory, logger: Logger(label: "test"), cache: CacheSystem(config.cache))
        let settings = try StoreSettings(catalog: store.catalog, verifier: try store.sandbox.verifier(), sandbox: store.sandbox)
        let metrics = ServerMetrics()
        let responder = TileResponder(
            registry: registry, config: config, metrics: metrics, logger: Logger(label: "test") { _ in log }, store: settings)
        let access = try #require(responder.access)
        let start = ContinuousClock.now
        for _ in 0..<5 {
            await #expect(throws: APIError.self) { try await access.accessMap() }
        }
        if ContinuousClock.now - start < TileAccess.retryDelay {
            #expect(access.reads.load(ordering: .relaxed) == 1, "one read, then none within the delay")
        }
        try await Task.sleep(for: TileAccess.retryDelay + .milliseconds(50))
        await #expect(throws: APIError.self) { try await access.accessMap() }
        #expect(access.reads.load(ordering: .relaxed) >= 2, "asked again after the delay")
        try await db.write { try $0.execute(sql: "ALTER TABLE products_away RENAME TO products") }
        try await Task.sleep(for: TileAccess.retryDelay + .milliseconds(50))
        #expect(try await access.accessMap().paid["co"] == "colorado")
        let failed = access.reads.load(ordering: .relaxed) - 1
        let text = String(decoding: metrics.render(), as: UTF8.self)
        #expect(text.contains("trailmap_paid_map_read_failures_total \(failed)\n"), "\(failed) failed reads")
        let warnings = log.lines.filter { $0.level == .warning }.map(\.message)
        #expect(warnings.count == 1 && warnings[0].contains("cannot be read"), "\(warnings)")
        let notices = log.lines.filter { $0.level == .notice }.map(\.message)
        #expect(notices.count == 1 && notices[0].contains("after \(failed) failed reads"), "\(notices)")
    }

    /// Finding 1 (server side): download URLs are relative, never built from the client's Host.
    // Hardening finding 1 (docs/notes/hardening.md).
    @Test func downloadURLsAreRelative() async throws {
        let store = try await computed { try StoreFixture() }
        try await store.app().test(.live) { client in
            let r = try await client.execute(uri: "/api/v1/catalog/colorado", method: .get)
            #expect(r.status == .ok)
            #expect(StoreFixture.json(r)["downloadURL"] as? String == "/api/v1/downloads/colorado")
        }
    }
}

/// Finding 5 through HTTP: logins are throttled per client address and answered 429 with
/// Retry-After before any password hashing.
@Suite struct LoginFloodTests {
    // Hardening finding 5 (docs/notes/hardening.md).
    @Test func wrongLoginsFromOneAddressAreAnswered429() async throws {
        let store = try await computed { try StoreFixture() }
        try await store.app().test(.live) { client in
            _ = try await APIUser.register(client, email: "ann@example.com")
            var statuses: [Int] = []
            for i in 0..<21 {
                let body = StoreFixture.body(["email": "nobody\(i)@example.com", "password": "wrong password"])
                let r = try await client.execute(
                    uri: "/api/v1/sessions", method: .post, headers: [.contentType: "application/json"], body: body)
                statuses.append(r.status.code)
            }
            #expect(statuses.prefix(20).allSatisfy { $0 == 401 }, "\(statuses)")
            #expect(statuses.last == 429, "\(statuses)")
            // Every email from this address now waits, the right password included.
            let right = StoreFixture.body(["email": "ann@example.com", "password": "correct horse battery"])
            let r = try await client.execute(
                uri: "/api/v1/sessions", method: .post, headers: [.contentType: "application/json"], body: right)
            #expect(r.status == .tooManyRequests && r.headers[.retryAfter].flatMap { Int($0) }.map { $0 >= 1 } == true)
            #expect(StoreFixture.errorCode(r) == "too_many_attempts")
        }
    }
}

/// Finding 11 (lows): access logs never show a tile token.
@Suite struct LogRedactionTests {
    // Hardening finding 11 (docs/notes/hardening.md).
    @Test func tileTokensAreRedactedFromLoggedURIs() {
        #expect(LogRedaction.uri("/tiles/co/4/3/6.png?token=abc.def&v=2") == "/tiles/co/4/3/6.png?token=REDACTED&v=2")
        #expect(LogRedaction.uri("/tiles/co/4/3/6.png?v=2&TOKEN=x") == "/tiles/co/4/3/6.png?v=2&token=REDACTED")
        #expect(LogRedaction.uri("/tiles/co/4/3/6.png?v=2") == "/tiles/co/4/3/6.png?v=2")
        #expect(LogRedaction.uri("/tiles/co/4/3/6.png") == "/tiles/co/4/3/6.png")
        #expect(!LogRedaction.uri("/x?a=1&token=secret&token=again").contains("secret"))
    }
}

/// Architecture: nothing blocks an event loop. The fast path never reads the catalog (a
/// synchronous SQLite read with a 10 s busy timeout would stall every connection of its loop):
/// when the paid map is stale, a tile loop's request waits while a task reads it, and NIO's fast
/// path sends the request to Hummingbird's path, which reads it.
@Suite struct EventLoopCatalogReadTests {
    @Test(arguments: ServingPath.allCases) func theFastPathNeverReadsTheCatalog(path: ServingPath) async throws {
        let f = try await computed { try StoreFixture() }
        let live = try f.live(path)
        let access = try #require(live.app.responder.access)
        let t = WebMercator.tile(lon: -105, lat: 39, zoom: 2)
        try await live.test { client in
            for _ in 0..<3 {
                // Let the paid map go stale, then ask for free and paid tiles.
                try await Task.sleep(for: .milliseconds(1100))
                for id in ["world", "co", "world"] {
                    let r = try await client.execute(uri: "/tiles/\(id)/\(t.z)/\(t.x)/\(t.y).png", method: .get)
                    #expect(r.status == (id == "co" ? .unauthorized : .ok), "\(id)")
                }
            }
        }
        #expect(access.reads.load(ordering: .relaxed) >= 3, "the map was re-read")
        #expect(access.readsOnEventLoop.load(ordering: .relaxed) == 0, "never on an event loop")
    }

    /// Tile-loop requests that find the paid map stale at once (a burst after a quiet second)
    /// share one read of it, and those with one new credential for one product share its check.
    /// On PostgreSQL, whose reads suspend (SQLite's run to the end, so its concurrent readers
    /// mostly find the map read already).
    @Test func requestsWaitingForOneCatalogReadShareIt() async throws {
        let cluster = try await PostgresCluster.started()
        defer { cluster.remove() }
        let f = try await computed { try StoreFixture() }
        let catalog = try await retrying { try await ReplicaTests.open(cluster.url(options: "sslmode=disable&connect_timeout=5")) }
        defer { catalog.close() }
        let products = try ProductFile.load(path: f.tiles.dir.file("products.json"))
        _ = try await retrying { try await catalog.publish(products, tilesDirectory: f.tiles.dir.path) }
        let access = try #require(try ReplicaTests.app(f, catalog).responder.access)
        #expect(throws: StaleAccessMap.self) { try access.cachedPaidProduct(tileset: "co") }
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<32 { group.addTask { await access.read(.paidMap) } }
        }
        #expect(access.reads.load(ordering: .relaxed) == 1)
        #expect(try access.cachedPaidProduct(tileset: "co") == "colorado")
        // 32 requests with one credential for one product, 8 with another: two checks. The
        // catalog's sessions table is held locked until every request has asked (a check reads
        // it), so no check ends before the last request could join it, however slowly a loaded
        // machine starts the tasks.
        let holder = Task { try? await cluster.psql("BEGIN; LOCK TABLE sessions IN ACCESS EXCLUSIVE MODE; SELECT pg_sleep(120); COMMIT") }
        let locked = """
            SELECT count(*) FROM pg_locks l JOIN pg_class c ON c.oid = l.relation
            WHERE c.relname = 'sessions' AND l.mode = 'AccessExclusiveLock' AND l.granted
            """
        for _ in 0..<600 where try await cluster.psql(locked) != ["1"] { try await Task.sleep(for: .milliseconds(50)) }
        #expect(try await cluster.psql(locked) == ["1"], "the sessions table is locked")
        final class Count: Sendable { let n = Atomic<Int>(0) }
        let asked = Count()
        await withTaskGroup(of: Void.self) { group in
            for i in 0..<40 {
                let wait = CatalogWait.grant(.init(credential: .init(kind: .bearer, text: i % 5 == 4 ? "bob" : "ann"), product: "colorado"))
                group.addTask {
                    asked.n.add(1, ordering: .relaxed)
                    _ = await access.read(wait)
                }
            }
            group.addTask {
                while asked.n.load(ordering: .relaxed) < 40 { try? await Task.sleep(for: .milliseconds(10)) }
                try? await Task.sleep(for: .milliseconds(300))
                _ = try? await cluster.psql(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE '%pg_sleep(120)%' AND pid <> pg_backend_pid()")
            }
        }
        _ = await holder.value
        #expect(access.checks.load(ordering: .relaxed) == 2)
    }
}

/// Finding 11 (lows): a tile token ends with the login session that asked for it.
@Suite struct TileTokenSessionTests {
    // Hardening finding 11 (docs/notes/hardening.md).
    @Test(arguments: ServingPath.allCases) func tileTokensStopWorkingAtLogout(path: ServingPath) async throws {
        let f = try await computed { try StoreFixture() }
        let t = WebMercator.tile(lon: -105, lat: 39, zoom: 4)
        try await f.live(path).test { client in
            let ann = try await StoreUser.register(client, email: "ann@example.com")
            _ = try await ann.buy("colorado")
            let uri = "/tiles/co/\(t.z)/\(t.x)/\(t.y).png"
            let token = try #require(
                StoreFixture.json(try await ann.call(.post, "/api/v1/tile-tokens", ["productId": "colorado"]))["token"] as? String)
            #expect(try await client.execute(uri: uri + "?token=\(token)", method: .get).status == .ok)
            #expect(try await ann.call(.delete, "/api/v1/sessions").status == .noContent)
            let after = try await client.execute(uri: uri + "?token=\(token)", method: .get)
            #expect(after.status == .unauthorized && StoreFixture.errorCode(after) == "invalid_tile_token")
        }
    }
}
