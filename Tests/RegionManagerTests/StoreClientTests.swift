import Foundation
import RegionManager
import Synchronization
import Testing
import TrailMapAPI

@Suite struct StoreClientTests {
    static let catalogJSON = #"{"categories":[],"products":[]}"#

    @Test func retriesServiceUnavailableWithBackoffThenSucceeds() async throws {
        let count = Mutex(0)
        let server = try TestHTTPServer { _ in
            let n = count.withLock {
                $0 += 1; return $0
            }
            return n <= 2 ? .json(503, #"{"error":{"code":"unavailable","message":"busy"}}"#) : .json(200, Self.catalogJSON)
        }
        let client = StoreClient(server: server.url, http: TestData.http(attempts: 4))
        let started = ContinuousClock.now
        let listing = try await client.catalog(deviceId: nil)
        #expect(listing.products.isEmpty)
        #expect(count.withLock { $0 } == 3)
        #expect(ContinuousClock.now - started >= .milliseconds(30)) // 10 ms + 20 ms of backoff
    }

    @Test func givesUpAfterTheLastAttemptWithAClearMessage() async throws {
        let count = Mutex(0)
        let server = try TestHTTPServer { _ in
            count.withLock { $0 += 1 }
            return .json(503, #"{"error":{"code":"unavailable","message":"maintenance"}}"#)
        }
        let client = StoreClient(server: server.url, http: TestData.http(attempts: 3))
        await #expect(throws: RegionManagerError.serverFailure(status: 503, attempts: 3, message: "maintenance")) {
            _ = try await client.catalog(deviceId: nil)
        }
        #expect(count.withLock { $0 } == 3)
    }

    @Test func unreachableServerIsExplained() async throws {
        let server = try TestHTTPServer { _ in .json(200, "{}") }
        let url = server.url
        server.stop()
        let client = StoreClient(server: url, http: TestData.http(attempts: 2))
        do {
            _ = try await client.catalog(deviceId: nil)
            Issue.record("a stopped server answered")
        } catch let error as RegionManagerError {
            guard case let .serverUnreachable(_, attempts, _) = error else { Issue.record("unexpected \(error)"); return }
            #expect(attempts == 2)
            #expect(error.description.contains("Cannot reach the TrailMap server"))
        }
    }

    @Test func expiredTokenAsksToLogIn() async throws {
        let server = try TestHTTPServer { _ in .json(401, #"{"error":{"code":"unauthorized","message":"expired"}}"#) }
        let client = StoreClient(server: server.url, token: "old", http: TestData.http())
        do {
            _ = try await client.entitlements()
            Issue.record("no error")
        } catch let error as RegionManagerError {
            guard case .notLoggedIn = error else { Issue.record("unexpected \(error)"); return }
            #expect(error.description.contains("Log in again") && !error.description.contains("trailmap"))
        }
    }

    @Test func missingTokenFailsWithoutARequest() async throws {
        let count = Mutex(0)
        let server = try TestHTTPServer { _ in
            count.withLock { $0 += 1 }; return .json(200, "{}")
        }
        await #expect(throws: RegionManagerError.notLoggedIn(server: server.url.absoluteString)) {
            _ = try await StoreClient(server: server.url, http: TestData.http()).entitlements()
        }
        #expect(count.withLock { $0 } == 0)
    }

    @Test func apiErrorsAreTyped() async throws {
        let server = try TestHTTPServer { request in
            request.path.hasPrefix("/api/v1/catalog/")
                ? .json(404, #"{"error":{"code":"unknown_product","message":"no such product"}}"#)
                : .json(409, #"{"error":{"code":"email_taken","message":"that email has an account"}}"#)
        }
        let client = StoreClient(server: server.url, http: TestData.http())
        await #expect(throws: RegionManagerError.unknownProduct("nope")) { _ = try await client.product("nope", deviceId: nil) }
        await #expect(throws: RegionManagerError.rejected(status: 409, code: "email_taken", message: "that email has an account")) {
            _ = try await client.register(email: "a@b.c", password: "0123456789")
        }
    }

    @Test func productDetailCarriesTheLevelsOfDetail() async throws {
        var summary = ProductSummary(
            productId: "quads", title: "Quads", category: "States", price: Price(amount: "4.99", currency: "USD"),
            version: 1, size: 1, sha256: "ab", minzoom: 12, maxzoom: 15, bounds: [0, 0, 1, 1], tileset: "quads",
            status: .forSale)
        summary.levels = [
            ProductLevel(
                name: "quads-7.5", title: "7.5-minute maps", kind: "series", minzoom: 12, maxzoom: 15,
                summary: "7.5-minute maps, zooms 12–15")
        ]
        summary.levelsSummary = "7.5-minute maps, zooms 12–15"
        let detail = ProductDetail(
            summary: summary, coverage: Coverage(productId: "quads", title: "Quads", west: 0, south: 0, east: 1, north: 1),
            previewTileURL: "/tiles/quads/12/0/0.png", downloadURL: "/api/v1/downloads/quads",
            tileJSONURL: "/tiles/quads.json", publishedAt: "2026-11-22T01:02:03Z")
        let server = try TestHTTPServer { _ in StubStore.json(200, detail) }
        let p = try await StoreClient(server: server.url, http: TestData.http()).product("quads", deviceId: nil)
        #expect(p == detail)
        #expect(p.levels.map(\.summary) == ["7.5-minute maps, zooms 12–15"])
        #expect(p.levels.first?.kind == "series" && p.levels.first?.minzoom == 12)
        #expect(p.levelsSummary == "7.5-minute maps, zooms 12–15")
        #expect(p.downloadURL == "/api/v1/downloads/quads" && p.coverage.geometry.coordinates[0].count == 5)
    }

    @Test func sendsBearerTokenAndDeviceQuery() async throws {
        let seen = Mutex<[String]>([])
        let server = try TestHTTPServer { request in
            seen.withLock { $0.append("\(request.method) \(request.path) \(request.header("authorization") ?? "-")") }
            return .json(200, Self.catalogJSON)
        }
        _ = try await StoreClient(server: server.url, token: "abc", http: TestData.http()).catalog(deviceId: "dev-1")
        #expect(seen.withLock { $0 } == ["GET /api/v1/catalog?device=dev-1 Bearer abc"])
    }
}
