import Foundation
import RegionManager
import Synchronization
import Testing
import TrailMapAPI
import TrailMapTestSupport

/// Issue 36, findings 9, 10 and 12 on the library side: numbers, names and plain http from a
/// malicious or intercepted server, over a real socket.
@Suite struct HostileAnswerTests {
    static func product(id: String = "com.test.region", tileset: String = "test") -> ProductSummary {
        ProductSummary(
            productId: id, title: "T", category: "C", price: Price(amount: "1.99", currency: "USD"), version: 1, size: 10,
            sha256: String(repeating: "ab", count: 32), minzoom: 0, maxzoom: 4, bounds: [-10, -10, 10, 10], tileset: tileset,
            status: .purchased)
    }

    // MARK: finding 10, numbers

    /// `Retry-After: 1e30` or `inf` made Double → Int trap (SIGILL) in every command; now any
    /// value is parsed, checked finite and clamped, and the retry happens within the policy's cap.
    /// (A wait of the server's choosing would hold the test to its time limit.)
    @Test(.timeLimit(.minutes(3)), arguments: ["1e30", "inf", "-inf", "nan", "1e300", "99999999999999999999", "-1", "soon"])
    func anyRetryAfterIsSurvived(value: String) async throws {
        let calls = Mutex(0)
        let server = try TestHTTPServer { _ in
            let n = calls.withLock {
                $0 += 1; return $0
            }
            if n == 1 { return TestHTTPServer.Response(status: 503, headers: [("Retry-After", value)]) }
            return StubStore.json(200, CatalogListing(categories: [], products: [Self.product()]))
        }
        defer { server.stop() }
        let client = StoreClient(server: server.url, token: "tok", http: TestData.http(attempts: 2))
        let listing = try await client.catalog(deviceId: nil)
        #expect(listing.products.count == 1 && calls.withLock { $0 } == 2)
    }

    /// The same header on a bundle chunk (the downloader's own retry loop).
    /// (The limit only catches an endless wait: alone this takes under a second; a loaded CI machine
    /// once took over a minute to schedule it.)
    @Test(.timeLimit(.minutes(3))) func aDownloadSurvivesAnInfiniteRetryAfter() async throws {
        let tmp = TemporaryDirectory()
        let route = BundleRoute(data: TestData.bytes(50_000))
        let refused = Mutex(0)
        let server = try TestHTTPServer { request in
            if refused.withLock({
                $0 += 1; return $0
            }) <= 2 {
                return TestHTTPServer.Response(status: 503, headers: [("Retry-After", refused.withLock { $0 } == 1 ? "inf" : "1e30")])
            }
            return route.respond(request)
        }
        defer { server.stop() }
        try await Downloader(http: TestData.http(attempts: 3), chunkSize: 64 * 1024).download(TestData.job(server, route, dir: tmp.path))
        #expect(try FileDigest.sha256(path: PartialDownload(productId: "com.test.region", directory: tmp.path).path) == route.sha256)
    }

    /// `largestRadiusKm: 1e300` trapped formatting the message of `regions area quote`; a
    /// nearest region `1e300` km away too. Clamped to what a quote may ask for, and printed.
    @Test func absurdDistancesFromTheServerAreClampedNotACrash() async throws {
        for value in [1e300, Double.greatestFiniteMagnitude, 5e18] {
            let server = try TestHTTPServer { _ in
                StubStore.json(422, APIErrorBody(code: "area_too_large", message: "too large", largestRadiusKm: value))
            }
            defer { server.stop() }
            let client = StoreClient(server: server.url, token: "tok", http: TestData.http())
            do {
                _ = try await client.quoteArea(AreaQuoteRequest(center: [-105.68, 40.34], radiusKm: 50))
                Issue.record("quoted")
            } catch let error as RegionManagerError {
                #expect(error == .areaTooLarge(radiusKm: 50, largestRadiusKm: AreaQuoteRequest.maxRadiusKm, message: "too large"))
                #expect(error.description.contains("The largest radius that fits is 200 km"), "\(error.description)")
            }
        }
        let far = RegionManagerError.areaNotCovered(
            center: [10, 20], zooms: nil,
            nearby: [
                NearbyRegion(productId: "a", title: "A", distanceKm: 1e300),
                NearbyRegion(productId: "b", title: "B", distanceKm: .infinity)
            ])
        #expect(far.description.contains("A (a), 1e+300 km away; B (b), ? km away"), "\(far.description)")
        let huge = RegionManagerError.areaTooLarge(radiusKm: nil, largestRadiusKm: 9.3e18, message: "")
        #expect(huge.description.contains("9.3e+18 km"), "\(huge.description)")
    }

    // MARK: finding 9, names

    /// Every id or name a server sends is checked before it can become a path.
    @Test(arguments: [
        "/../victim/notes", "..", ".", ".hidden", "a/b", "a\\b", "", "name with space", "ümlaut",
        "esc\u{1B}]0;x\u{07}", String(repeating: "a", count: 129)
    ])
    func unsafeIdsAndNamesAreRefused(name: String) async throws {
        for (id, tileset, field) in [(name, "test", "product id"), ("com.test.region", name, "tileset name")]
        where !(field == "tileset name" && name.isEmpty) {
            let server = try TestHTTPServer { _ in
                StubStore.json(200, CatalogListing(categories: [], products: [Self.product(id: id, tileset: tileset)]))
            }
            defer { server.stop() }
            let client = StoreClient(server: server.url, token: "tok", http: TestData.http())
            await #expect(throws: RegionManagerError.unsafeName(field: field, value: name)) { _ = try await client.catalog(deviceId: nil) }
        }
        let bought = AreaPurchaseResult(
            areaId: name, productId: "com.test.areas", transactionId: "1", alreadyRecorded: false, title: "A",
            size: 1, sha256: String(repeating: "ab", count: 32), minzoom: 1, maxzoom: 2, bounds: [0, 0, 1, 1],
            downloadURL: "/api/v1/downloads/x")
        let server = try TestHTTPServer { _ in StubStore.json(201, bought) }
        defer { server.stop() }
        let client = StoreClient(server: server.url, token: "tok", http: TestData.http())
        await #expect(throws: RegionManagerError.unsafeName(field: "area id", value: name)) {
            _ = try await client.buyArea(quoteId: "q1", signedTransaction: "a.b.c")
        }
        #expect(RegionManagerError.unsafeName(field: "product id", value: name).description.contains("Nothing was changed"))
    }

    @Test func ordinaryIdsPass() async throws {
        let server = try TestHTTPServer { _ in
            StubStore.json(
                200,
                CatalogListing(
                    categories: [],
                    products: [
                        Self.product(id: "com.trailmap.region.co-2_v1", tileset: "co"),
                        Self.product(id: "area-0123456789abcdef01234567", tileset: "")
                    ]))
        }
        defer { server.stop() }
        #expect(try await StoreClient(server: server.url, http: TestData.http()).catalog(deviceId: nil).products.count == 2)
    }

    // MARK: finding 12, plain http

    /// A password over plain http to another machine is refused before a byte is sent, with a
    /// structured error; allowed explicitly, it goes; on this machine it needs nothing.
    @Test func plainHTTPToAnotherMachineIsRefusedUnlessAllowed() async throws {
        let address = try #require(NetworkAddresses.nonLoopbackIPv4(), "this machine has no non-loopback IPv4 address")
        let requests = Mutex<[String]>([])
        let server = try TestHTTPServer(address: "0.0.0.0") { r in
            requests.withLock { $0.append("\(r.method) \(r.path) \(String(decoding: r.body, as: UTF8.self))") }
            return StubStore.json(401, APIErrorBody(code: "unauthorized", message: "wrong password"))
        }
        defer { server.stop() }
        let tmp = TemporaryDirectory()
        let state = try LocalState(directory: tmp.file("state"))
        let remote = try #require(URL(string: "http://\(address):\(server.port)"))
        let accounts = AccountManager(state: state, server: remote, http: TestData.http())
        await #expect(throws: RegionManagerError.insecureHTTP(server: "http://\(address):\(server.port)")) {
            _ = try await accounts.login(email: "a@example.com", password: "secret-password", deviceName: "d")
        }
        let store = try RegionManager(
            state: state, server: remote, installer: Installer(tilesDirectory: tmp.file("Tiles")), http: TestData.http())
        await #expect(throws: RegionManagerError.insecureHTTP(server: "http://\(address):\(server.port)")) { _ = try await store.list() }
        let route = BundleRoute(data: TestData.bytes(1000))
        let job = Downloader.Job(
            url: remote.appendingPathComponent("api/v1/downloads/x"), token: "tok", productId: "x", sha256: route.sha256,
            size: route.size, partial: PartialDownload(productId: "x", directory: tmp.path))
        await #expect(throws: RegionManagerError.insecureHTTP(server: "http://\(address):\(server.port)")) {
            try await Downloader(http: TestData.http()).download(job)
        }
        #expect(requests.withLock { $0 }.isEmpty, "nothing reached the server: \(requests.withLock { $0 })")

        let allowed = RetryingHTTPClient(retry: RetryPolicy(attempts: 1), timeout: 10, allowsInsecureHTTP: true)
        await #expect(throws: RegionManagerError.notLoggedIn(server: remote.absoluteString)) {
            _ = try await AccountManager(state: state, server: remote, http: allowed).login(
                email: "a@example.com", password: "secret-password", deviceName: "d")
        }
        #expect(
            requests.withLock { $0 }.count == 1 && requests.withLock { $0 }.first?.contains("secret-password") == true,
            "allowed, the password went in the clear, as the flag says")
        await #expect(throws: RegionManagerError.notLoggedIn(server: server.url.absoluteString)) {
            _ = try await AccountManager(state: state, server: server.url, http: TestData.http()).login(
                email: "a@example.com", password: "p", deviceName: "d")
        }
        #expect(requests.withLock { $0 }.count == 2, "loopback needs no permission")
    }

    @Test func loopbackIsThisMachineOnly() throws {
        for host in [
            "localhost", "LOCALHOST", "localhost.", "127.0.0.1", "127.1.2.3", "127.255.255.254", "::1", "[::1]", "::ffff:127.0.0.1"
        ] {
            #expect(TransportSecurity.isLoopback(host: host), "\(host)")
        }
        for host in [
            "192.0.2.2", "10.0.0.1", "128.0.0.1", "0.0.0.0", "example.com", "localhost.example.com", "127.0.0.1.example.com",
            "::2", "::", "fd00::2", ""
        ] {
            #expect(!TransportSecurity.isLoopback(host: host), "\(host)")
        }
        for (url, plain) in [
            ("http://192.0.2.2:8080", true), ("HTTP://example.com", true), ("https://example.com", false),
            ("http://127.0.0.1:8080", false), ("http://[::1]:8080/x", false), ("http://localhost", false)
        ] {
            #expect(TransportSecurity.isPlainHTTPToAnotherMachine(try #require(URL(string: url))) == plain, "\(url)")
        }
    }
}
