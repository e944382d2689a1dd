import Foundation
import CatalogSQLite
import GRDB
import Hummingbird
import HummingbirdTesting
import Testing
import TileGeometry
import Synchronization
import TileStore
@testable import TrailMapServer
import TrailMapTestSupport

/// `RawTileServer` (`ServerConfiguration.tileLoops`) over a real socket: the tile loops own the
/// port and answer free cached tiles; every other request, and the rest of its connection, is
/// answered by Hummingbird on the same port, as when Hummingbird owns it.
@Suite struct RawTileServerTests {
    let fixture = ServerFixture()
    static let tile = TileID(z: 3, x: 1, y: 3)!
    static let other = TileID(z: 4, x: 3, y: 6)!
    static func uri(_ t: TileID, _ set: String = "co") -> String { "/tiles/\(set)/\(t.z)/\(t.x)/\(t.y).png" }

    /// Runs the application `make` builds (it passes on the port callback) until `body` returns;
    /// `body` gets the port the tile loops listen on.
    static func serving(
        _ make: (@escaping @Sendable (Int) async -> Void) throws -> Application<TileResponder>,
        _ body: @escaping @Sendable (Int) async throws -> Void
    ) async throws {
        try await LiveApp(make).test { try await body(try #require($0.port)) }
    }

    func app(
        loops: Int = 2, _ adjust: (inout ServerConfiguration) -> Void = { _ in }
    )
        -> (@escaping @Sendable (Int) async -> Void) throws -> Application<TileResponder>
    {
        var config = ServerConfiguration(tilesDirectory: fixture.dir.path)
        config.port = 0
        config.tileLoops = loops
        adjust(&config)
        let made = config
        return { TileServer.makeApplication(config: made, onRunning: $0) }
    }

    static func get(_ path: String, _ extra: String = "") -> String { "GET \(path) HTTP/1.1\r\nHost: x\r\n\(extra)\r\n" }

    @Test func pipelinedTilesHeadAnd304AreAnsweredByteIdentical() async throws {
        try fixture.bundle("co", missing: Self.other)
        let present = TileID(z: 4, x: 3, y: 5)!
        try await Self.serving(app()) { port in
            let first = try await RawHTTP.exchange(
                port: port,
                Self.get(Self.uri(Self.tile))
                    + "HEAD \(Self.uri(present)) HTTP/1.1\r\nHost: x\r\n\r\n" + Self.get(Self.uri(Self.other))
                    + Self.get(Self.uri(Self.tile)),
                heads: [false, true, false, false])
            #expect(first.map(\.status) == [200, 200, 404, 200])
            let tileBytes = try ServerFixture.png(Self.tile)
            #expect(first[0].body == tileBytes && first[3].body == first[0].body)
            let presentBytes = try ServerFixture.png(present)
            #expect(first[1].body.isEmpty && first[1].headers["content-length"] == String(presentBytes.count))
            #expect(String(decoding: first[2].body, as: UTF8.self).contains("tile_not_found"))
            let etag = try #require(first[0].headers["etag"])
            // A 304 for the ETag; HTTP/1.0 without keep-alive is answered, then closed.
            let second = try await RawHTTP.exchange(
                port: port,
                Self.get(Self.uri(Self.tile), "If-None-Match: \(etag)\r\n")
                    + "GET \(Self.uri(Self.tile)) HTTP/1.0\r\n\r\n", heads: [false, false], expectClose: true)
            #expect(second.map(\.status) == [304, 200] && second[0].body.isEmpty && second[1].headers["connection"] == "close")
            // Every answer was tallied (read through Hummingbird's /metrics on the same port).
            let metrics = try await RawHTTP.exchange(port: port, Self.get("/metrics"), heads: [false])
            let text = String(decoding: metrics[0].body, as: UTF8.self)
            #expect(text.contains(#"trailmap_http_requests_total{route="tile",status="200"} 4"#), "\(text.prefix(2000))")
            #expect(text.contains(#"trailmap_http_requests_total{route="tile",status="304"} 1"#))
            #expect(text.contains(#"trailmap_http_requests_total{route="tile",status="404"} 1"#))
        }
    }

    @Test func otherRoutesAndTheRestOfTheirConnectionGoToHummingbird() async throws {
        try fixture.bundle("co")
        try await Self.serving(app()) { port in
            let answers = try await RawHTTP.exchange(
                port: port,
                Self.get(Self.uri(Self.tile)) + Self.get("/healthz")
                    + Self.get(Self.uri(Self.tile)) + Self.get("/tiles/co.json") + Self.get(Self.uri(Self.tile), "Connection: close\r\n"),
                heads: [false, false, false, false, false], expectClose: true)
            #expect(answers.map(\.status) == [200, 200, 200, 200, 200])
            #expect(String(decoding: answers[1].body, as: UTF8.self).contains("\"status\""))
            #expect(String(decoding: answers[3].body, as: UTF8.self).contains("\"tiles\""))
            let tileBytes = try ServerFixture.png(Self.tile)
            #expect(answers[0].body == tileBytes && answers[2].body == tileBytes && answers[4].body == tileBytes)
            // A bad coordinate is Hummingbird's 400, as before.
            let bad = try await RawHTTP.exchange(port: port, Self.get("/tiles/co/3/99/0.png"), heads: [false])
            #expect(bad.map(\.status) == [400])
        }
    }

    @Test func paidTilesAreRefusedOnTheLoopsWithoutAPurchase() async throws {
        let f = try await computed { try StoreFixture() } // co: paid, zooms 2-4, so its preview with 3 levels is 2-3
        let at = { (z: Int) in WebMercator.tile(lon: -105, lat: 39, zoom: z) }
        let paths = [2, 3, 4, 3].map { Self.uri(at($0)) }
        try await Self.serving({ try f.app(previewZooms: 3, tileLoops: 2, onRunning: $0) }) { port in
            let before = try await Self.loopCounters(port: port)
            let answers = try await RawHTTP.exchange(port: port, paths.map { Self.get($0) }.joined(), heads: [false, false, false, false])
            #expect(answers.map(\.status) == [200, 200, 401, 200])
            let again = try await RawHTTP.exchange(port: port, Self.get(paths[2]), heads: [false])
            #expect(again.map(\.status) == [401], "the paid zoom stays paid on a new connection")
            let after = try await Self.loopCounters(port: port)
            #expect(after.handOffs - before.handOffs == 1, "the metrics' own connection only")
        }
    }

    /// `/metrics` read on a connection of its own (itself one hand-off), as a lookup of a
    /// series' value (a gauge's truncated; -1 for a series not shown).
    static func metrics(port: Int) async throws -> (String) -> Int {
        let answer = try await RawHTTP.exchange(port: port, get("/metrics"), heads: [false])
        let text = String(decoding: try #require(answer.first).body, as: UTF8.self)
        return { series in
            text.split(separator: "\n").first { $0.hasPrefix(series + " ") }.flatMap { Double($0.split(separator: " ")[1]) }
                .map { Int($0) } ?? -1
        }
    }

    /// The tile loops' counters, read from `/metrics` on a connection of its own (itself one
    /// hand-off): connections handed on, requests held for a grant and for the paid map.
    static func loopCounters(port: Int) async throws -> (handOffs: Int, grantWaits: Int, paidMapWaits: Int) {
        let value = try await metrics(port: port)
        let waits = "trailmap_tile_loop_catalog_waits_total"
        return (
            value("trailmap_tile_loop_handoffs_total"), value(waits + #"{reason="grant"}"#), value(waits + #"{reason="paid_map"}"#)
        )
    }

    /// With a store, which tilesets are paid is read from the catalog and holds a second. A tile
    /// request that finds it unread or stale waits on the tile loops for the read, and its
    /// connection stays there (it was handed to Hummingbird, for good).
    @Test func aStalePaidMapIsReadWhileTheTileLoopsWait() async throws {
        let f = try await computed { try StoreFixture() }
        let free = Self.uri(WebMercator.tile(lon: -105, lat: 39, zoom: 3), "world")
        let paid = Self.uri(WebMercator.tile(lon: -105, lat: 39, zoom: 3))
        let live = try f.live(.loops)
        let access = try #require(live.app.responder.access)
        try await live.test { client in
            let port = try #require(client.port)
            let before = try await Self.loopCounters(port: port)
            let first = try await RawHTTP.exchange(port: port, Self.get(free) + Self.get(free), heads: [false, false])
            #expect(first.map(\.status) == [200, 200])
            try await Task.sleep(for: TileAccess.mapLifetime + .milliseconds(200))
            let second = try await RawHTTP.exchange(
                port: port, Self.get(free) + Self.get(paid) + Self.get(free), heads: [false, false, false])
            #expect(second.map(\.status) == [200, 401, 200], "the paid tile is still refused")
            #expect(second[0].body == first[0].body && second[2].body == first[0].body)
            let after = try await Self.loopCounters(port: port)
            #expect(after.paidMapWaits - before.paidMapWaits == 2, "never read, then stale")
            #expect(after.handOffs - before.handOffs == 1, "the metrics' own connection: the paid tile is refused on the loops")

            // Many connections that find the map stale at once share one read of it.
            try await Task.sleep(for: TileAccess.mapLifetime + .milliseconds(200))
            let reads = access.reads.load(ordering: .relaxed)
            let statuses = try await withThrowingTaskGroup(of: [Int].self) { group in
                for _ in 0..<16 { group.addTask { try await RawHTTP.exchange(port: port, Self.get(free), heads: [false]).map(\.status) } }
                return try await group.reduce(into: []) { $0 += $1 }
            }
            #expect(statuses == Array(repeating: 200, count: 16))
            let burst = try await Self.loopCounters(port: port)
            #expect(burst.handOffs - after.handOffs == 1, "the metrics' own connection only")
            // One shared read, and at most one background re-read begun by the same requests.
            #expect(access.reads.load(ordering: .relaxed) - reads <= 2, "\(access.reads.load(ordering: .relaxed) - reads) reads")
        }
    }

    /// A catalog that cannot be read after the paid map was: the last map stays in force on the
    /// tile loops too (free tiles 200, paid ones still refused), their connections stay there, and
    /// the catalog is asked again only every `TileAccess.retryDelay`, not on every request.
    @Test func aCatalogThatCannotBeReadLeavesTheLastMapInForceOnTheLoops() async throws {
        let f = try await computed { try StoreFixture() }
        let free = Self.uri(WebMercator.tile(lon: -105, lat: 39, zoom: 3), "world")
        let paid = Self.uri(WebMercator.tile(lon: -105, lat: 39, zoom: 3))
        let live = try f.live(.loops)
        let access = try #require(live.app.responder.access)
        let db = try DatabaseQueue(path: f.catalog.path)
        try await live.test { client in
            let port = try #require(client.port)
            let first = try await RawHTTP.exchange(port: port, Self.get(free), heads: [false])
            #expect(first.map(\.status) == [200])
            try await db.write { try $0.execute(sql: "ALTER TABLE products RENAME TO products_away") }
            try await Task.sleep(for: TileAccess.mapLifetime + .milliseconds(200))
            let before = try await Self.loopCounters(port: port)
            let reads = access.reads.load(ordering: .relaxed)
            let start = ContinuousClock.now
            var statuses: [Int] = []
            for _ in 0..<40 {
                let answers = try await RawHTTP.exchange(port: port, Self.get(free) + Self.get(free), heads: [false, false])
                statuses += answers.map(\.status)
                #expect(answers.allSatisfy { $0.body == first[0].body })
                try await Task.sleep(for: .milliseconds(25))
            }
            let elapsed = ContinuousClock.now - start
            let after = try await Self.loopCounters(port: port)
            #expect(statuses == Array(repeating: 200, count: 80))
            #expect(after.handOffs - before.handOffs == 1, "the metrics' own connection only")
            let tried = access.reads.load(ordering: .relaxed) - reads
            let most = Int(elapsed / TileAccess.retryDelay) + 2
            #expect(tried >= 1 && tried <= most, "\(tried) reads in \(elapsed), at most \(most)")
            let refused = try await RawHTTP.exchange(port: port, Self.get(paid), heads: [false])
            #expect(refused.map(\.status) == [401], "the paid region stays paid")

            try await db.write { try $0.execute(sql: "ALTER TABLE products_away RENAME TO products") }
            try await Task.sleep(for: TileAccess.mapLifetime + .milliseconds(200))
            let readable = access.reads.load(ordering: .relaxed)
            let again = try await RawHTTP.exchange(port: port, Self.get(free) + Self.get(paid), heads: [false, false])
            #expect(again.map(\.status) == [200, 401])
            #expect(access.reads.load(ordering: .relaxed) > readable, "read again")
            #expect(try access.cachedPaidProduct(tileset: "co") == "colorado")
        }
    }

    /// A catalog that has never been read (down since the server started): the tile loops answer
    /// the 503 themselves, as Hummingbird's path does (`Retry-After`), and keep their connections;
    /// once the catalog can be read, tiles are served.
    @Test func aCatalogNeverReadIsA503OnTheLoops() async throws {
        let f = try await computed { try StoreFixture() }
        let free = Self.uri(WebMercator.tile(lon: -105, lat: 39, zoom: 3), "world")
        let live = try f.live(.loops)
        let access = try #require(live.app.responder.access)
        let db = try DatabaseQueue(path: f.catalog.path)
        try await db.write { try $0.execute(sql: "ALTER TABLE products RENAME TO products_away") }
        try await live.test { client in
            let port = try #require(client.port)
            let before = try await Self.loopCounters(port: port)
            let answers = try await RawHTTP.exchange(port: port, Self.get(free) + Self.get(free), heads: [false, false])
            #expect(answers.map(\.status) == [503, 503])
            #expect(answers.allSatisfy { $0.headers["retry-after"] == "1" })
            let after = try await Self.loopCounters(port: port)
            #expect(after.handOffs - before.handOffs == 1, "the metrics' own connection only")
            #expect(after.paidMapWaits - before.paidMapWaits >= 1)
            #expect(throws: StaleAccessMap.self, "never read") { try access.cachedPaidProduct(tileset: "world") }
            try await f.app().test(.router) { router in
                try await PaidRefusalTests.compare([(free, false, nil, "tileset_unavailable")], [answers[0]], router)
            }

            try await db.write { try $0.execute(sql: "ALTER TABLE products_away RENAME TO products") }
            try await Task.sleep(for: TileAccess.retryDelay + .milliseconds(100))
            let served = try await RawHTTP.exchange(port: port, Self.get(free), heads: [false])
            #expect(served.map(\.status) == [200])
        }
    }

    @Test func slowAndIdleConnectionsAreClosedAtTheirDeadlines() async throws {
        try fixture.bundle("co")
        try await Self.serving(
            app {
                $0.requestTimeout = .seconds(1); $0.idleTimeout = .seconds(4)
            }
        ) { port in
            // Half a request: closed after the request deadline (1 s), not the idle one (4 s; far
            // apart, so a loaded machine's delays don't blur them).
            let slow = try ConnectionDeadlineTests.Client(port: port)
            let (_, halfSeconds) = try await slow.secondsUntilClose(sending: "GET /tiles/co/3/1/3.png HTTP/1.1\r\nHo")
            #expect(halfSeconds >= 0.9 && halfSeconds < 3.5, "closed after \(halfSeconds) s")
            // A whole request answered, then nothing: closed after the idle deadline.
            let idle = try ConnectionDeadlineTests.Client(port: port)
            let (input, idleSeconds) = try await idle.secondsUntilClose(
                sending: Self.get(Self.uri(Self.tile)), after: "Server: trailmap\r\n")
            #expect(input?.hasPrefix("HTTP/1.1 200 OK") == true)
            #expect(idleSeconds >= 3.9 && idleSeconds < 8, "closed after \(idleSeconds) s")
            let metrics = try await RawHTTP.exchange(port: port, Self.get("/metrics"), heads: [false])
            #expect(String(decoding: metrics[0].body, as: UTF8.self).contains("trailmap_connections_timed_out_total 2"))
        }
    }

    /// A request pipelined behind a large answer has no request deadline while the client reads
    /// that answer (slowly, but reading): only the idle one holds. 8 MB is more than a socket's
    /// send buffer takes (at most 4 MB here), so the loop holds the rest while the client reads;
    /// reading it through a 4 KB window with pauses takes longer than the 1 s request deadline.
    @Test func aRequestBehindAnAnswerBeingReadIsNotTimedOut() async throws {
        let big = TileID(z: 3, x: 1, y: 3)!, small = TileID(z: 3, x: 2, y: 3)!
        let bytesBig = try Self.incompressible(8 << 20), bytesSmall = try Self.incompressible(300)
        try TestBundle.write(
            [(tile: big, data: bytesBig), (tile: small, data: bytesSmall)], to: fixture.dir.file("drain.mbtiles"),
            metadata: BundleMetadata(name: "drain", bounds: ServerFixture.box, minZoom: 3, maxZoom: 3))
        try await Self.serving(
            app {
                $0.requestTimeout = .seconds(1); $0.idleTimeout = .seconds(8)
            }
        ) { port in
            let input = try await offThePool {
                let fd = try LoopbackSocket.connect(port: port, readTimeout: 30, receiveBuffer: 4096)
                defer { close(fd) }
                let text = Array((Self.get(Self.uri(big, "drain")) + Self.get(Self.uri(small, "drain"), "Connection: close\r\n")).utf8)
                guard text.withUnsafeBytes({ Foundation.send(fd, $0.baseAddress, $0.count, 0) }) == text.count else {
                    throw RawHTTP.Failure(description: "short send")
                }
                var input: [UInt8] = []
                var chunk = [UInt8](repeating: 0, count: 8192)
                while true {
                    let n = recv(fd, &chunk, chunk.count, 0)
                    guard n >= 0 else { throw RawHTTP.Failure(description: "recv: errno \(errno) after \(input.count) bytes") }
                    if n == 0 { break }
                    // At most 8 KB each 5 ms: the 8 MB take over 5 s to read, past the deadline.
                    input += chunk[..<n]
                    usleep(5000)
                }
                return input
            }
            let answers = try RawHTTP.parse(input, heads: [false, false])
            #expect(answers.map(\.status) == [200, 200])
            #expect(answers.first?.body == bytesBig && answers.last?.body == bytesSmall)
        }
    }

    /// A client that sends a request and shuts down its sending side at once (`nc -N`) gets the
    /// answer, then the end of the connection, not a wait for the idle deadline: the request and
    /// the end may come in one edge. Ten connections, each given 5 s to end.
    @Test func aClientThatShutsDownItsSideIsAnsweredThenClosed() async throws {
        try fixture.bundle("co")
        try await Self.serving(app { $0.idleTimeout = .seconds(30) }) { port in
            for _ in 0..<10 {
                let input = try await offThePool {
                    let fd = try LoopbackSocket.connect(port: port, readTimeout: 5)
                    defer { close(fd) }
                    let text = Array(Self.get(Self.uri(Self.tile)).utf8)
                    guard text.withUnsafeBytes({ Foundation.send(fd, $0.baseAddress, $0.count, 0) }) == text.count else {
                        throw RawHTTP.Failure(description: "short send")
                    }
                    shutdown(fd, Int32(SHUT_WR))
                    var input: [UInt8] = []
                    var chunk = [UInt8](repeating: 0, count: 8192)
                    while true {
                        let n = recv(fd, &chunk, chunk.count, 0)
                        guard n >= 0 else {
                            throw RawHTTP.Failure(description: "no end within 5 s (errno \(errno)) after \(input.count) bytes")
                        }
                        if n == 0 { return input }
                        input += chunk[..<n]
                    }
                }
                #expect(try RawHTTP.parse(input, heads: [false]).map(\.status) == [200])
            }
        }
    }

    @Test func connectionsPastTheCapAreRefused() async throws {
        try fixture.bundle("co")
        try await Self.serving(app { $0.maxConnections = 1 }) { port in
            let held = try ConnectionDeadlineTests.Client(port: port)
            held.send(Self.get(Self.uri(Self.tile)))
            #expect(try await held.read(until: "Server: trailmap\r\n")?.hasPrefix("HTTP/1.1 200") == true)
            let refused = try ConnectionDeadlineTests.Client(port: port)
            #expect(try await refused.read()?.hasPrefix("HTTP/1.1 503 Service Unavailable") == true)
        }
    }

    /// A connection a tile loop hands to Hummingbird keeps its place under the connection cap: a
    /// connection accepted during the hand-off is refused, not the one handed on. Forty times at a
    /// cap of one: a tile, a request for Hummingbird, then at once a second connection.
    @Test func aHandedOnConnectionKeepsItsPlace() async throws {
        try fixture.bundle("co")
        try await Self.serving(app { $0.maxConnections = 1 }) { port in
            for round in 0..<40 {
                // Until the place is free: the connections of the round before closed on the
                // client's side first, so the server may not have seen it yet.
                let deadline = Date().addingTimeInterval(10)
                // (A refusal may end in a reset: the request was not read.)
                while (try? await RawHTTP.exchange(
                    port: port, Self.get(Self.uri(Self.tile), "Connection: close\r\n"), heads: [false], expectClose: true))?
                    .first?.status != 200, Date() < deadline
                {
                    try await Task.sleep(for: .milliseconds(10))
                }
                // A tile first: its answer shows the connection has its place (two loops accepting
                // at once may admit the second connection first).
                let handedOn = try ConnectionDeadlineTests.Client(port: port)
                handedOn.send(Self.get(Self.uri(Self.tile)))
                #expect(try await handedOn.read(until: "Server: trailmap\r\n")?.hasPrefix("HTTP/1.1 200") == true, "round \(round)")
                handedOn.send(Self.get("/healthz"))
                // Refused at once (15 s for a loaded machine; admitted, it would wait for a request).
                let refusal = try await offThePool {
                    let other = try LoopbackSocket.connect(port: port, readTimeout: 15)
                    defer { close(other) }
                    var input: [UInt8] = []
                    var chunk = [UInt8](repeating: 0, count: 4096)
                    while true {
                        let n = recv(other, &chunk, chunk.count, 0)
                        if n == 0 || (n < 0 && errno == ECONNRESET) { return String(decoding: input, as: UTF8.self) }
                        guard n > 0 else { throw RawHTTP.Failure(description: "not refused within 15 s") }
                        input += chunk[..<n]
                    }
                }
                #expect(refusal.hasPrefix("HTTP/1.1 503 Service Unavailable"), "round \(round)")
                let answer = try await handedOn.read(until: "\"status\"")
                #expect(answer?.contains("HTTP/1.1 503") == false, "round \(round): \(answer ?? "closed")")
            }
        }
    }

    /// `count` bytes that do not compress: PNG's magic number, then bytes of /dev/urandom read at
    /// once (a random number a byte took minutes of the shared pool in a debug build).
    static func incompressible(_ count: Int) throws -> [UInt8] {
        let urandom = try FileHandle(forReadingFrom: URL(fileURLWithPath: "/dev/urandom"))
        defer { try? urandom.close() }
        let rest = try urandom.read(upToCount: count - 8) ?? Data()
        return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + rest
    }

    /// Answers larger than the socket takes at once wait for it to drain (the loop's writable
    /// path, several `writev` calls per answer) and come out whole and in order, with the
    /// pipelined requests behind them answered after them.
    @Test func largeAnswersTheSocketTakesInPartsComeOutWholeAndInOrder() async throws {
        // Two tiles of 3 MB and 5 MB (PNG's magic number, then bytes that do not compress).
        let a = TileID(z: 3, x: 1, y: 3)!, b = TileID(z: 3, x: 1, y: 2)!
        let bytesA = try Self.incompressible(3 << 20), bytesB = try Self.incompressible(5 << 20)
        try TestBundle.write(
            [(tile: a, data: bytesA), (tile: b, data: bytesB)], to: fixture.dir.file("big.mbtiles"),
            metadata: BundleMetadata(name: "big", bounds: ServerFixture.box, minZoom: 3, maxZoom: 3))
        try await Self.serving(app()) { port in
            for round in 0..<2 { // read from the bundle, then from the cache
                let answers = try await RawHTTP.exchange(
                    port: port,
                    Self.get(Self.uri(a, "big")) + Self.get(Self.uri(b, "big"))
                        + "HEAD \(Self.uri(b, "big")) HTTP/1.1\r\nHost: x\r\n\r\n" + Self.get(Self.uri(a, "big"), "Connection: close\r\n"),
                    heads: [false, false, true, false], expectClose: true)
                #expect(answers.map(\.status) == [200, 200, 200, 200], "round \(round)")
                #expect(answers[0].body == bytesA && answers[1].body == bytesB && answers[3].body == bytesA, "round \(round)")
                #expect(answers[2].headers["content-length"] == String(bytesB.count))
            }
        }
    }

    /// A reader slower than the answers (a 4 KB receive buffer, read 8 KB at a time with pauses),
    /// which sends more requests while an answer still waits for its socket: every byte of every
    /// answer arrives, in request order, on both paths.
    @Test(arguments: ServingPath.allCases) func aSlowReaderGetsEveryAnswerWholeAndInOrder(path: ServingPath) async throws {
        let a = TileID(z: 3, x: 1, y: 3)!, b = TileID(z: 3, x: 1, y: 2)!, small = TileID(z: 3, x: 2, y: 3)!
        let bytesA = try Self.incompressible(3 << 20), bytesB = try Self.incompressible(700_000), bytesSmall = try Self.incompressible(300)
        try TestBundle.write(
            [(tile: a, data: bytesA), (tile: b, data: bytesB), (tile: small, data: bytesSmall)], to: fixture.dir.file("big.mbtiles"),
            metadata: BundleMetadata(name: "big", bounds: ServerFixture.box, minZoom: 3, maxZoom: 3))
        let first = Self.get(Self.uri(a, "big")) + Self.get(Self.uri(small, "big"))
        let second =
            Self.get(Self.uri(b, "big")) + "HEAD \(Self.uri(a, "big")) HTTP/1.1\r\nHost: x\r\n\r\n"
            + Self.get(Self.uri(small, "big"), "Connection: close\r\n")
        try await Self.serving(app(loops: path.tileLoops)) { port in
            let input = try await offThePool {
                let fd = try LoopbackSocket.connect(port: port, readTimeout: 30, receiveBuffer: 4096)
                defer { close(fd) }
                func send(_ text: String) throws {
                    let bytes = Array(text.utf8)
                    guard bytes.withUnsafeBytes({ Foundation.send(fd, $0.baseAddress, $0.count, 0) }) == bytes.count else {
                        throw RawHTTP.Failure(description: "short send")
                    }
                }
                try send(first)
                var input: [UInt8] = []
                var chunk = [UInt8](repeating: 0, count: 8192)
                var sentSecond = false
                while true {
                    // The rest of the requests once the first answer has started to arrive.
                    if !sentSecond, input.count >= 64 << 10 {
                        try send(second)
                        sentSecond = true
                    }
                    let n = recv(fd, &chunk, chunk.count, 0)
                    guard n >= 0 else { throw RawHTTP.Failure(description: "recv: errno \(errno) after \(input.count) bytes") }
                    if n == 0 { break }
                    input += chunk[..<n]
                    usleep(1000)
                }
                return input
            }
            let answers = try RawHTTP.parse(input, heads: [false, false, false, true, false])
            #expect(answers.map(\.status) == [200, 200, 200, 200, 200])
            #expect(answers[0].body == bytesA, "\(answers[0].body.count) of \(bytesA.count) bytes")
            #expect(answers[1].body == bytesSmall && answers[4].body == bytesSmall)
            #expect(answers[2].body == bytesB, "\(answers[2].body.count) of \(bytesB.count) bytes")
            #expect(answers[3].body.isEmpty && answers[3].headers["content-length"] == String(bytesA.count))
            #expect(answers[4].headers["connection"] == "close")
        }
    }

    /// Stopping the server lets the loops finish the answers under way: an 8 MB tile being read
    /// through a small window when the server stops arrives whole, then its connection ends; an
    /// idle connection ends at once, and new connections are refused meanwhile.
    @Test func answersUnderWayAreSentWhenTheServerStops() async throws {
        let big = TileID(z: 3, x: 1, y: 3)!
        let bytesBig = try Self.incompressible(8 << 20)
        try TestBundle.write(
            [(tile: big, data: bytesBig)], to: fixture.dir.file("drain.mbtiles"),
            metadata: BundleMetadata(name: "drain", bounds: ServerFixture.box, minZoom: 3, maxZoom: 3))
        final class Held: @unchecked Sendable {
            var reading: Task<([UInt8], Bool), any Error>?
            var idle: ConnectionDeadlineTests.Client?
        }
        let held = Held()
        try await Self.serving(app { $0.requestTimeout = .seconds(20) }) { port in
            // Cached first: a tile the loops have not cached goes to Hummingbird.
            let warm = try await RawHTTP.exchange(port: port, Self.get(Self.uri(big, "drain")), heads: [false])
            #expect(warm.first?.body == bytesBig)
            let idle = try ConnectionDeadlineTests.Client(port: port)
            idle.send("HEAD \(Self.uri(big, "drain")) HTTP/1.1\r\nHost: x\r\n\r\n")
            let fd = try LoopbackSocket.connect(port: port, readTimeout: 30, receiveBuffer: 4096)
            let text = Array(Self.get(Self.uri(big, "drain")).utf8)
            guard text.withUnsafeBytes({ Foundation.send(fd, $0.baseAddress, $0.count, 0) }) == text.count else {
                close(fd)
                throw RawHTTP.Failure(description: "short send")
            }
            // The idle connection's answer (a head only), whole: it has nothing under way when the
            // server stops.
            let first = try await #require(idle.read(until: "\r\n\r\n"))
            #expect(first.hasPrefix("HTTP/1.1 200"))
            held.idle = idle
            held.reading = Task {
                try await offThePool {
                    defer { close(fd) }
                    var input: [UInt8] = []
                    var chunk = [UInt8](repeating: 0, count: 8192)
                    func readOn(until count: Int) throws {
                        while input.count < count {
                            let n = recv(fd, &chunk, chunk.count, 0)
                            guard n >= 0 else { throw RawHTTP.Failure(description: "recv: errno \(errno) after \(input.count) bytes") }
                            if n == 0 { return }
                            input += chunk[..<n]
                        }
                    }
                    // A megabyte, then no reading until a new connection is refused: the loop
                    // cannot finish the answer meanwhile (the window is closed), so a refusal
                    // comes while it drains, not after. Tried for longer than the drain may last.
                    try readOn(until: 1 << 20)
                    var refused = false
                    let deadline = Date().addingTimeInterval(40)
                    while !refused, Date() < deadline {
                        do {
                            close(try LoopbackSocket.connect(port: port, readTimeout: 1))
                            usleep(10_000)
                        } catch { refused = true }
                    }
                    try readOn(until: .max)
                    return (input, refused)
                }
            }
        }
        // The server has stopped: the reader got every byte, then the end; a new connection was
        // refused while the answer was still under way (a loop that left the listener open until
        // its drain ended would have cut the answer at the request timeout first).
        let (input, refused) = try await #require(held.reading).value
        #expect(refused, "no connection refused within 40 s")
        let answers = try RawHTTP.parse(input, heads: [false])
        #expect(answers.map(\.status) == [200])
        #expect(answers.first?.body.count == bytesBig.count && answers.first?.body == bytesBig)
        // The idle connection ended (nil: the end came; a read that times out throws).
        let rest = try await #require(held.idle).read()
        #expect(rest != nil)
    }

    @Test func handedOnConnectionsAreClosedAtShutdown() async throws {
        try fixture.bundle("co")
        final class Held: @unchecked Sendable { var client: ConnectionDeadlineTests.Client? }
        let held = Held()
        try await Self.serving(app()) { port in
            let client = try ConnectionDeadlineTests.Client(port: port)
            client.send(Self.get("/healthz"))
            #expect(try await client.read(until: "\"status\"") != nil)
            held.client = client
        }
        // The server has stopped: the kept-alive connection Hummingbird was given is closed
        // (nil would be a close before the marker; a read that times out throws).
        let rest = try await #require(held.client).read()
        #expect(rest != nil)
    }
}
