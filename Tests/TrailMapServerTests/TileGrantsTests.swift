import CatalogSQLite
import Foundation
import GRDB
import HTTPTypes
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import StoreVerification
import Testing
import TileCache
import TileGeometry
@testable import TrailMapServer
import TrailMapTestSupport

/// `TileGrants`: what it keeps, for how long, for which product, and what clears it; and how a
/// tile request's credential is read on the tile loops' path.
@Suite struct TileGrantsTests {
    let ann = TileGrants.Credential(kind: .bearer, text: "ann-token")

    @Test func aGrantHoldsForItsLifetimeAndItsProductOnly() {
        let grants = TileGrants(lifetime: .seconds(2))
        let t0: UInt64 = 1_000_000_000
        #expect(grants.session(ann, product: "co", now: t0) == nil)
        grants.grant(ann, product: "co", session: "s1", generation: grants.generation, now: t0)
        #expect(grants.session(ann, product: "co", now: t0 + 500_000_000)?.session == "s1")
        #expect(grants.session(ann, product: "co", now: t0 + 1_999_999_999)?.session == "s1")
        #expect(grants.session(ann, product: "co", now: t0 + 2_000_000_000) == nil, "expired")
        #expect(grants.session(ann, product: "ut", now: t0) == nil, "another product")
        #expect(grants.session(.init(kind: .token, text: "ann-token"), product: "co", now: t0) == nil, "the same text as a tile token")
    }

    @Test func clearingDropsGrantsAndChecksThatBeganBeforeIt() {
        let grants = TileGrants(lifetime: .seconds(60))
        grants.grant(ann, product: "co", session: "s1", generation: grants.generation)
        #expect(grants.session(ann, product: "co")?.session == "s1")
        let before = grants.generation
        grants.clear()
        #expect(grants.session(ann, product: "co") == nil)
        // A catalog check that began before the clear (the refund) must not record its answer.
        grants.grant(ann, product: "co", session: "s1", generation: before)
        #expect(grants.session(ann, product: "co") == nil && grants.count == 0)
        grants.grant(ann, product: "co", session: "s1", generation: grants.generation)
        #expect(grants.session(ann, product: "co")?.session == "s1")
    }

    @Test func aGrantAsksForOneRenewalInTheSecondHalfOfItsLifetime() {
        let grants = TileGrants(lifetime: .seconds(2))
        let t0: UInt64 = 1_000_000_000
        grants.grant(ann, product: "co", session: "s1", generation: grants.generation, now: t0)
        #expect(grants.session(ann, product: "co", now: t0 + 900_000_000)?.renew == false)
        #expect(grants.session(ann, product: "co", now: t0 + 1_100_000_000)?.renew == true)
        #expect(grants.session(ann, product: "co", now: t0 + 1_200_000_000)?.renew == false, "asked once")
        // The catalog accepted it again: a new lifetime, and a renewal in its second half again.
        let t1 = t0 + 1_300_000_000
        grants.grant(ann, product: "co", session: "s1", generation: grants.generation, now: t1)
        #expect(grants.session(ann, product: "co", now: t0 + 2_200_000_000)?.renew == false, "past the first lifetime")
        #expect(grants.session(ann, product: "co", now: t1 + 1_100_000_000)?.renew == true)
        grants.revoke(ann, product: "co")
        #expect(grants.session(ann, product: "co", now: t1 + 1_200_000_000) == nil, "refused at the renewal")
    }

    @Test func aZeroLifetimeKeepsNothing() {
        let grants = TileGrants(lifetime: .zero)
        grants.grant(ann, product: "co", session: "s1", generation: grants.generation)
        #expect(grants.session(ann, product: "co") == nil && grants.count == 0)
    }

    @Test func theGrantsStayWithinTheirCapacity() {
        let grants = TileGrants(lifetime: .seconds(60))
        for i in 0..<(TileGrants.capacity + 10) {
            grants.grant(.init(kind: .bearer, text: "t\(i)"), product: "co", session: "s", generation: grants.generation)
            #expect(grants.count <= TileGrants.capacity)
        }
        #expect(
            grants.session(.init(kind: .bearer, text: "t\(TileGrants.capacity + 9)"), product: "co")?.session == "s", "the newest is kept")
    }

    @Test func theCredentialIsReadAsTheTileRouteReadsIt() {
        typealias C = TileGrants.Credential
        func read(_ target: String, _ authorization: String?) -> C.Presented { C.presented(target: target, authorization: authorization) }
        let tile = "/tiles/co/3/1/2.png"
        #expect(read(tile, "Bearer abc") == .credential(C(kind: .bearer, text: "abc")))
        #expect(read(tile, "bearer  abc ") == .credential(C(kind: .bearer, text: "abc")))
        #expect(read(tile, "BeArEr \tabc\t") == .credential(C(kind: .bearer, text: "abc")))
        #expect(read(tile, "Bearer abc\u{00A0}") == .credential(C(kind: .bearer, text: "abc")), "Unicode blanks too")
        #expect(read(tile + "?token=1.x.y", "Bearer abc") == .credential(C(kind: .token, text: "1.x.y")))
        #expect(read(tile + "?v=2&token=1.x.y", nil) == .credential(C(kind: .token, text: "1.x.y")))
        // No credential, as Hummingbird's path finds none: refused at once.
        #expect(read(tile, nil) == .nothing)
        #expect(read(tile + "?v=2", nil) == .nothing)
        #expect(read(tile, "Basic YTpi") == .nothing)
        #expect(read(tile, "Bearer") == .nothing)
        #expect(read(tile, "Bearer " + String(repeating: "a", count: 1024)) == .nothing, "longer than the API takes")
        // Left to Hummingbird's path: escapes, two tokens, an empty one, a blank bearer token, a header not ASCII.
        #expect(read(tile, "Bearer \t ") == .unclear, "blank")
        #expect(read(tile, "Bearex é") == .unclear)
        #expect(read(tile + "?token=1.x%2By", nil) == .unclear)
        #expect(read(tile + "?token=a&token=b", nil) == .unclear)
        #expect(read(tile + "?token=", "Bearer abc") == .unclear)
        // Where the token stands in the query, and what is not it.
        #expect(read("/t/1/2/3.png?token=a.b&v=2", nil) == .credential(C(kind: .token, text: "a.b")))
        #expect(read("/t/1/2/3.png?&token=a.b&", nil) == .credential(C(kind: .token, text: "a.b")))
        #expect(read("/t/1/2/3.png?token=a=b", nil) == .credential(C(kind: .token, text: "a=b")))
        #expect(read("/t/1/2/3.png?tokens=a&xtoken=b&Token=c", "Bearer abc") == .credential(C(kind: .bearer, text: "abc")))
        #expect(read("/t/1/2/3.png?tokens=a&xtoken=b&Token=c", nil) == .nothing)
        #expect(read("/t/1/2/3.png?", "Bearer abc") == .credential(C(kind: .bearer, text: "abc")))
        #expect(
            read("/t/1/2/3.png?token=" + String(repeating: "a", count: 512), nil)
                == .credential(C(kind: .token, text: String(repeating: "a", count: 512))))
        #expect(read("/t/1/2/3.png?token=" + String(repeating: "a", count: 513), nil) == .unclear)
        #expect(read(tile + "?%74oken=abc&v=%41", nil) == .nothing, "Hummingbird's path decodes no parameter's name")
        for unusual in ["?token=a+b", "?token&v=1", "?token=a#b", "?v=é&token=a", "?token=a&v=\u{301}"] {
            #expect(read("/t/1/2/3.png" + unusual, "Bearer abc") == .unclear, "\(unusual)")
            #expect(read("/t/1/2/3.png" + unusual, nil) == .unclear, "\(unusual)")
        }
    }

    /// On queries of the characters that matter, a token read on the tile loops' path is the one
    /// Hummingbird's path reads (`URI.queryParameters`), or none is and that path decides.
    @Test func theTokenIsTheOneHummingbirdReads() {
        var generator = SystemRandomNumberGenerator()
        let pieces = ["token", "token=", "=", "&", "a", ".", "#", "%41", "+", "é", "tokens", "x"]
        for _ in 0..<20_000 {
            let query = (0..<Int.random(in: 0...8, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined()
            let target = "/tiles/co/3/1/2.png?" + query
            let reference = URI(target).queryParameters["token"].map(String.init)
            switch TileGrants.Credential.presented(target: target, authorization: nil) {
            case .nothing: #expect(reference == nil, "\(target): no credential, where Hummingbird reads \(reference ?? "")")
            case .credential(let credential): #expect(credential.kind == .token && credential.text == reference, "\(target)")
            case .unclear: break
            }
            guard case let .credential(credential) = TileGrants.Credential.presented(target: target, authorization: "Bearer zzz") else {
                continue
            }
            if credential.kind == .token {
                #expect(credential.text == reference, "\(target)")
            } else {
                #expect(reference == nil, "\(target): the bearer token, where Hummingbird reads \(reference ?? "")")
            }
        }
    }

    @Test func aRequestWithTwoAuthorizationHeadersIsLeftToHummingbird() {
        func parse(_ text: String) -> RawTileRequest? {
            guard case let .request(r, _) = Array(text.utf8).withUnsafeBytes({ RawTileRequest.parse($0) }) else { return nil }
            return r
        }
        #expect(parse("GET /tiles/co/3/1/2.png HTTP/1.1\r\nAuthorization: Bearer abc\r\n\r\n")?.authorization == "Bearer abc")
        let twice = parse("GET /tiles/co/3/1/2.png HTTP/1.1\r\nAuthorization: Bearer abc\r\nauthorization: Bearer def\r\n\r\n")
        #expect(twice == nil, "its credential is Hummingbird's path's to read")
        #expect(parse("GET /tiles/co/3/1/2.png HTTP/1.1\r\nHost: x\r\n\r\n")?.authorization == nil)
    }
}

/// Paid tiles with grants, through the tile loops' own answer (`FastTileAnswer`, on a real bundle
/// and catalog) and through two live replicas on one catalog.
@Suite struct PaidTileGrantTests {
    @Test func theTileLoopsAnswerAGrantedPaidTileOnly() async throws {
        let f = try await computed { try StoreFixture() }
        var config = ServerConfiguration(tilesDirectory: f.tiles.dir.path)
        config.grantLifetime = .seconds(60)
        let logger = Logger(label: "test")
        let registry = TilesetRegistry(directory: config.tilesDirectory, logger: logger, cache: CacheSystem(config.cache))
        registry.refresh()
        let store = try StoreSettings(catalog: f.catalog, verifier: try f.sandbox.verifier(), sandbox: f.sandbox)
        let responder = TileResponder(registry: registry, config: config, metrics: ServerMetrics(), logger: logger, store: store)
        let access = try #require(responder.access)
        _ = try await access.accessMap()
        let t = WebMercator.tile(lon: -105, lat: 39, zoom: 3)
        let uri = "/tiles/co/3/\(t.x)/\(t.y).png"
        func answer(_ uri: String, _ authorization: String?) -> FastTileAnswer? {
            FastTileAnswer.make(
                responder, isHead: false, uri: uri, ifNoneMatch: nil, connection: nil, client: nil, authorization: authorization,
                date: "Thu, 01 Jan 2026 00:00:00 GMT", received: RawTileLoop.clock(), allocator: ByteBufferAllocator())
        }
        #expect(answer(uri, "Bearer ann") == nil, "no grant: Hummingbird's path checks the catalog")
        access.grants.grant(.init(kind: .bearer, text: "ann"), product: "colorado", session: "s", generation: access.grants.generation)
        let granted = try #require(answer(uri, "Bearer ann"))
        #expect(String(buffer: granted.head).hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(String(buffer: granted.head).contains("Cache-Control: private"))
        #expect(granted.body.map { Array(buffer: $0) } == (try ServerFixture.png(t, shade: 1)))
        #expect(answer(uri, "Bearer bob") == nil, "another credential")
        #expect(answer(uri + "?token=ann", nil) == nil, "the same text as a tile token")
        #expect(answer("/tiles/ut/3/\(t.x)/\(t.y).png", "Bearer ann") == nil, "another product")
        access.grants.clear()
        #expect(answer(uri, "Bearer ann") == nil)
    }

    /// The refusal a loop keeps from a credential's check answers the request that waited for it:
    /// the same credential for the same product, nothing else (not a paid map's refusal either).
    @Test func aRefusalIsAnsweredForItsOwnCredentialAndProductOnly() async throws {
        let f = try await computed { try StoreFixture() }
        var config = ServerConfiguration(tilesDirectory: f.tiles.dir.path)
        config.grantLifetime = .seconds(60)
        let logger = Logger(label: "test")
        let registry = TilesetRegistry(directory: config.tilesDirectory, logger: logger, cache: CacheSystem(config.cache))
        registry.refresh()
        let store = try StoreSettings(catalog: f.catalog, verifier: try f.sandbox.verifier(), sandbox: f.sandbox)
        let responder = TileResponder(registry: registry, config: config, metrics: ServerMetrics(), logger: logger, store: store)
        _ = try await #require(responder.access).accessMap()
        let t = WebMercator.tile(lon: -105, lat: 39, zoom: 3)
        let bob = TileGrants.Credential(kind: .bearer, text: "bob")
        let refused = APIError(.forbidden, code: "not_entitled", message: "no")
        func outcome(_ authorization: String, _ refusal: CatalogRefusal?) -> FastTileAnswer.Outcome {
            var head = ByteBufferAllocator().buffer(capacity: 64)
            return FastTileAnswer.outcome(
                responder, isHead: false, uri: "/tiles/co/3/\(t.x)/\(t.y).png", ifNoneMatch: nil, connection: nil, client: nil,
                authorization: authorization, date: "Thu, 01 Jan 2026 00:00:00 GMT", received: RawTileLoop.clock(), refusal: refusal,
                head: &head)
        }
        let own = CatalogRefusal(wait: .grant(TileGrants.Needed(credential: bob, product: "colorado")), answer: refused)
        guard case let .answer(answer) = outcome("Bearer bob", own) else {
            Issue.record("the refusal was not answered")
            return
        }
        #expect(String(buffer: answer.head).hasPrefix("HTTP/1.1 403 Forbidden\r\n"))
        #expect(answer.body.map { String(buffer: $0) }?.contains("not_entitled") == true)
        for (authorization, refusal) in [
            ("Bearer bob", nil), ("Bearer ann", own),
            ("Bearer bob", CatalogRefusal(wait: .grant(TileGrants.Needed(credential: bob, product: "utah")), answer: refused)),
            ("Bearer bob", CatalogRefusal(wait: .paidMap, answer: refused))
        ] {
            guard case let .waitForCatalog(wait) = outcome(authorization, refusal) else {
                Issue.record("\(authorization), \(String(describing: refusal?.wait)): answered")
                continue
            }
            #expect(wait.reason == .grant)
        }
    }

    /// A tile-loop request that has waited for a read of the paid map takes the map as it is,
    /// however old (a read on a loaded machine can end after the map's lifetime), as Hummingbird's
    /// path does after its own read; one that has not waited finds it stale.
    @Test func aRequestThatWaitedForThePaidMapTakesItHoweverOld() async throws {
        let f = try await computed { try StoreFixture() }
        let registry = TilesetRegistry(directory: f.tiles.dir.path, logger: Logger(label: "test"), cache: CacheSystem(CacheConfiguration()))
        registry.refresh()
        let store = try StoreSettings(catalog: f.catalog, verifier: try f.sandbox.verifier(), sandbox: f.sandbox)
        let responder = TileResponder(
            registry: registry, config: ServerConfiguration(tilesDirectory: f.tiles.dir.path), metrics: ServerMetrics(),
            logger: Logger(label: "test"), store: store)
        let access = try #require(responder.access)
        _ = try await access.accessMap()
        let t = WebMercator.tile(lon: -105, lat: 39, zoom: 3)
        func outcome(paidMapRead: Bool) -> FastTileAnswer.Outcome {
            var head = ByteBufferAllocator().buffer(capacity: 64)
            return FastTileAnswer.outcome(
                responder, isHead: false, uri: "/tiles/world/3/\(t.x)/\(t.y).png", ifNoneMatch: nil, connection: nil, client: nil,
                date: "Thu, 01 Jan 2026 00:00:00 GMT", received: RawTileLoop.clock(), paidMapRead: paidMapRead, head: &head)
        }
        // Re-reads fail from now on, so the map only ages (a failed read keeps it `retryDelay`).
        try await DatabaseQueue(path: f.catalog.path).write { try $0.execute(sql: "ALTER TABLE products RENAME TO products_away") }
        try await Task.sleep(for: TileAccess.mapLifetime + .milliseconds(200))
        guard case .waitForCatalog(.paidMap) = outcome(paidMapRead: false) else {
            Issue.record("a stale map was taken without a read")
            return
        }
        try await Task.sleep(for: TileAccess.retryDelay + .milliseconds(200))
        guard case let .answer(answer) = outcome(paidMapRead: true) else {
            Issue.record("a request that waited for the map was not answered from it")
            return
        }
        #expect(String(buffer: answer.head).hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(answer.body.map { Array(buffer: $0) } == (try ServerFixture.png(t)))
    }

    /// Replica A keeps grants, replica B does not; both on one catalog. A logout through B holds
    /// on A once A's grant lifetime has passed; one through A holds at once.
    @Test(arguments: [ServingPath.loops, .nio]) func aChangeReachesAReplicaWithinTheGrantLifetime(path: ServingPath) async throws {
        let f = try await computed { try StoreFixture() }
        let t = WebMercator.tile(lon: -105, lat: 39, zoom: 3)
        let u = WebMercator.tile(lon: -105, lat: 39, zoom: 4)
        let tile = "/tiles/co/3/\(t.x)/\(t.y).png", other = "/tiles/co/4/\(u.x)/\(u.y).png"
        let lifetime = Duration.milliseconds(1500)
        let replicaA = try f.live(path, grantLifetime: lifetime)
        let grants = try #require(replicaA.app.responder.access?.grants)
        try await replicaA.test { a in
            try await f.live(.nio).test { b in
                let ann = try await StoreUser.register(a, email: "ann@example.com")
                #expect(try await ann.buy("colorado").status == .created)
                let bearer: HTTPFields = [.authorization: "Bearer \(ann.token)"]
                #expect(try await a.execute(uri: tile, method: .get, headers: bearer).status == .ok)
                let started = ContinuousClock.now
                // Ann logs out through replica B: B refuses her token at once.
                #expect(try await b.execute(uri: "/api/v1/sessions", method: .delete, headers: bearer).status.code < 300)
                #expect(try await b.execute(uri: tile, method: .get, headers: bearer).status == .unauthorized)
                // A answers from its grant while it lasts (any tile of the product), then asks the catalog.
                let onA = try await a.execute(uri: other, method: .get, headers: bearer).status
                if ContinuousClock.now - started < lifetime { #expect(onA == .ok, "within the grant") }
                try await Task.sleep(for: lifetime + .milliseconds(300))
                #expect(try await a.execute(uri: tile, method: .get, headers: bearer).status == .unauthorized)

                // Through A itself, a logout holds at once.
                let login = try await a.execute(
                    uri: "/api/v1/sessions", method: .post, headers: [.contentType: "application/json"],
                    body: StoreFixture.body(["email": "ann@example.com", "password": "correct horse battery"]))
                let again: HTTPFields = [.authorization: "Bearer \(try #require(StoreFixture.json(login)["token"] as? String))"]
                #expect(try await a.execute(uri: tile, method: .get, headers: again).status == .ok)
                // A request that changes nothing (a tile token) keeps the grants; a logout clears them.
                var json = again
                json[.contentType] = "application/json"
                let token = try await a.execute(
                    uri: "/api/v1/tile-tokens", method: .post, headers: json, body: StoreFixture.body(["productId": "colorado"]))
                #expect(token.status == .created && grants.count == 1)
                #expect(try await a.execute(uri: "/api/v1/sessions", method: .delete, headers: again).status.code < 300)
                #expect(grants.count == 0)
                #expect(try await a.execute(uri: tile, method: .get, headers: again).status == .unauthorized)
            }
        }
    }

    /// A paid tile whose credential has no grant yet waits on the tile loops for the catalog's
    /// check, and is answered there with the requests behind it: the connection is not handed on.
    /// A credential the catalog refuses is answered there too, with why, after one check.
    @Test func aPaidTileWaitsOnTheTileLoopsForTheCatalogsCheck() async throws {
        let f = try await computed { try StoreFixture() }
        let t = WebMercator.tile(lon: -105, lat: 39, zoom: 3)
        let u = WebMercator.tile(lon: -105, lat: 39, zoom: 4)
        let tile = "/tiles/co/3/\(t.x)/\(t.y).png", other = "/tiles/co/4/\(u.x)/\(u.y).png"
        let replica = try f.live(.loops, grantLifetime: .seconds(60))
        let grants = try #require(replica.app.responder.access?.grants)
        try await replica.test { a in
            let ann = try await StoreUser.register(a, email: "ann@example.com")
            #expect(try await ann.buy("colorado").status == .created)
            let bob = try await StoreUser.register(a, email: "bob@example.com")
            let port = try #require(a.port)
            func get(_ path: String, _ token: String) -> String {
                "GET \(path) HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(token)\r\n\r\n"
            }
            func counters() async throws -> (handOffs: Int, checks: Int) {
                let c = try await RawTileServerTests.loopCounters(port: port)
                return (c.handOffs, c.grantWaits)
            }
            let before = try await counters()
            let answers = try await RawHTTP.exchange(
                port: port, get(tile, ann.token) + get(other, ann.token) + get(tile, ann.token), heads: [false, false, false])
            #expect(answers.map(\.status) == [200, 200, 200])
            #expect(answers[0].body == (try ServerFixture.png(t, shade: 1)) && answers[2].body == answers[0].body)
            #expect(answers[1].body == (try ServerFixture.png(u, shade: 1)))
            #expect(grants.session(.init(kind: .bearer, text: ann.token), product: "colorado") != nil)
            let after = try await counters()
            #expect(after.checks - before.checks == 1, "one check, then the grant")
            #expect(after.handOffs - before.handOffs == 1, "only the metrics' own connection was handed on")

            // Refused: the loops answer why, then the rest of the connection.
            let refused = try await RawHTTP.exchange(
                port: port, get(tile, bob.token) + get(tile, ann.token) + "GET \(tile) HTTP/1.1\r\nHost: x\r\n\r\n",
                heads: [false, false, false])
            #expect(refused.map(\.status) == [403, 200, 401])
            #expect(String(decoding: refused[0].body, as: UTF8.self).contains("not_entitled"))
            #expect(refused[1].body == answers[0].body)
            let last = try await counters()
            #expect(last.checks - after.checks == 1 && last.handOffs - after.handOffs == 1, "Bob's check; the metrics' own connection")
            #expect(grants.session(.init(kind: .bearer, text: bob.token), product: "colorado") == nil)
        }
    }

    /// An active buyer's grant is renewed by a check in the second half of its lifetime (the tile
    /// loops keep answering); once the catalog refuses the credential, the next renewal ends it.
    @Test func anActiveBuyersGrantIsRenewedUntilTheCatalogRefusesIt() async throws {
        let f = try await computed { try StoreFixture() }
        let t = WebMercator.tile(lon: -105, lat: 39, zoom: 3)
        let tile = "/tiles/co/3/\(t.x)/\(t.y).png"
        let lifetime = Duration.seconds(4)
        let replicaA = try f.live(.loops, grantLifetime: lifetime)
        let grants = try #require(replicaA.app.responder.access?.grants)
        try await replicaA.test { a in
            try await f.live(.nio).test { b in
                let ann = try await StoreUser.register(a, email: "ann@example.com")
                #expect(try await ann.buy("colorado").status == .created)
                let bearer: HTTPFields = [.authorization: "Bearer \(ann.token)"]
                let credential = TileGrants.Credential(kind: .bearer, text: ann.token)
                let start = ContinuousClock.now
                #expect(try await a.execute(uri: tile, method: .get, headers: bearer).status == .ok)
                #expect(grants.session(credential, product: "colorado") != nil, "checked and granted")
                try await Task.sleep(until: start + .milliseconds(2500))
                #expect(try await a.execute(uri: tile, method: .get, headers: bearer).status == .ok)
                // Past the first grant's lifetime, the renewal's grant holds.
                try await Task.sleep(until: start + lifetime + .milliseconds(500))
                #expect(grants.session(credential, product: "colorado") != nil, "renewed")

                #expect(try await b.execute(uri: "/api/v1/sessions", method: .delete, headers: bearer).status.code < 300)
                let logout = ContinuousClock.now
                var status = HTTPResponse.Status.ok
                while status == .ok, ContinuousClock.now - logout < lifetime + .seconds(3) {
                    status = try await a.execute(uri: tile, method: .get, headers: bearer).status
                    if status == .ok { try await Task.sleep(for: .milliseconds(200)) }
                }
                #expect(status == .unauthorized, "the logout reached replica A")
                #expect(grants.session(credential, product: "colorado") == nil)
            }
        }
    }
}
