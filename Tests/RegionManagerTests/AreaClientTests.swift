import Foundation
import RegionManager
import Synchronization
import Testing
import TrailMapAPI
import TrailMapTestSupport

/// The area calls of `StoreClient` and `RegionManager` against a stub server on a real socket:
/// the requests they send, and each area error answer mapped to a typed error a user can act on.
@Suite struct AreaClientTests {
    static let quote = AreaQuote(
        quoteId: "q-1", productId: "com.test.areas", title: "Area around 40.3400, -105.6800",
        price: Price(amount: "0.99", currency: "USD"), bounds: [-105.74, 40.29, -105.62, 40.39],
        minzoom: 3, maxzoom: 12, requestedMaxzoom: 14, size: 3_456_789, tiles: 1234, maxBytes: 10 << 20,
        sources: ["co"], expiresAt: "2026-11-23T15:20:00Z", message: "zoom 14 would be 31 MB: lowered to 12")
    static let bought = AreaPurchaseResult(
        areaId: "area-0123456789abcdef01234567", productId: "com.test.areas", transactionId: "2000001",
        alreadyRecorded: false, title: "Area around 40.3400, -105.6800", size: 3_456_789,
        sha256: String(repeating: "ab", count: 32), minzoom: 3, maxzoom: 12,
        bounds: [-105.74, 40.29, -105.62, 40.39],
        downloadURL: "/api/v1/downloads/area-0123456789abcdef01234567")

    static func error(_ status: Int, _ body: APIErrorBody) -> TestHTTPServer.Response { StubStore.json(status, body) }

    /// A client whose every request gets `answer`; the requests are logged.
    static func client(
        _ answer: @escaping @Sendable (TestHTTPServer.Request) -> TestHTTPServer.Response
    )
        throws -> (StoreClient, TestHTTPServer)
    {
        let server = try TestHTTPServer(handler: answer)
        return (StoreClient(server: server.url, token: "tok", http: TestData.http()), server)
    }

    @Test func quoteSendsTheCircleAndDecodesTheQuote() async throws {
        let seen = Mutex<[TestHTTPServer.Request]>([])
        let (client, server) = try Self.client { r in
            seen.withLock { $0.append(r) }; return StubStore.json(201, Self.quote)
        }
        defer { server.stop() }
        let q = try await client.quoteArea(AreaQuoteRequest(center: [-105.68, 40.34], radiusKm: 5, maxzoom: 14))
        #expect(q == Self.quote)
        let r = try #require(seen.withLock { $0.first })
        #expect(r.method == "POST" && r.path == "/api/v1/areas/quotes" && r.header("authorization") == "Bearer tok")
        let body = try JSONDecoder().decode(AreaQuoteRequest.self, from: r.body)
        #expect(body == AreaQuoteRequest(center: [-105.68, 40.34], radiusKm: 5, maxzoom: 14))
        let object = try #require(try JSONSerialization.jsonObject(with: r.body) as? [String: Any])
        #expect(Set(object.keys) == ["center", "radiusKm", "maxzoom"], "optional members are left out, never null")
    }

    @Test func aPointNoMapCoversNamesTheNearestRegions() async throws {
        let nearby = [
            NearbyRegion(productId: "com.test.region.co", title: "Test Colorado", distanceKm: 1234.56),
            NearbyRegion(productId: "com.test.region.ut", title: "Test Utah", distanceKm: 1500.04)
        ]
        let (client, server) = try Self.client { _ in
            Self.error(404, APIErrorBody(code: "area_not_covered", message: "no area product covers 10, 10", nearby: nearby))
        }
        defer { server.stop() }
        do {
            _ = try await client.quoteArea(AreaQuoteRequest(center: [10, 20], radiusKm: 5))
            Issue.record("quoted an uncovered point")
        } catch let error as RegionManagerError {
            #expect(error == .areaNotCovered(center: [10, 20], zooms: nil, nearby: nearby))
            #expect(
                error.description == "No map covers 20.0000, 10.0000, so no area can be sold there. The nearest regions: "
                    + "Test Colorado (com.test.region.co), 1,234 km away; Test Utah (com.test.region.ut), 1,500 km away. "
                    + "Pick a point inside one of them.")
        }
        let lonely = try Self.client { _ in Self.error(404, APIErrorBody(code: "area_not_covered", message: "far", nearby: [])) }
        defer { lonely.1.stop() }
        await #expect(throws: RegionManagerError.areaNotCovered(center: [10, 20], zooms: "zooms 15 and up", nearby: [])) {
            _ = try await lonely.0.quoteArea(AreaQuoteRequest(center: [10, 20], radiusKm: 5, minzoom: 15))
        }
        #expect(
            RegionManagerError.areaNotCovered(center: [10, 20], zooms: "zooms 15 and up", nearby: []).description
                == "No map covers 20.0000, 10.0000 at zooms 15 and up, so no area can be sold there, and no region is nearby. "
                + "Leave out the zooms to get the ones the maps there hold.")
        // Inside a map that lacks the zooms asked for: the zooms are the trouble, not the place.
        let inside = RegionManagerError.areaNotCovered(
            center: [-105.5, 39.5], zooms: "zooms up to 10",
            nearby: [NearbyRegion(productId: "co", title: "Colorado", distanceKm: 0)])
        #expect(
            inside.description == "No area can be sold at 39.5000, -105.5000: the maps there, Colorado (co), do not hold zooms up to 10. "
                + "Leave out the zooms to get the ones the maps there hold.")
    }

    @Test func anAreaOverTheCapGivesTheLargestRadius() async throws {
        let (client, server) = try Self.client { _ in
            Self.error(
                422, APIErrorBody(code: "area_too_large", message: "31.2 MB at zooms 3-14, the cap is 10 MB", largestRadiusKm: 12.37))
        }
        defer { server.stop() }
        do {
            _ = try await client.quoteArea(AreaQuoteRequest(center: [-105.68, 40.34], radiusKm: 50, maxzoom: 14))
            Issue.record("quoted over the cap")
        } catch let error as RegionManagerError {
            #expect(error == .areaTooLarge(radiusKm: 50, largestRadiusKm: 12.37, message: "31.2 MB at zooms 3-14, the cap is 10 MB"))
            #expect(
                error.description.hasPrefix(
                    "An area of 50 km radius is larger than one purchase allows. "
                        + "The largest radius that fits is 12.3 km: ask again with a radius of 12.3 km "), "rounded down, so that it fits")
        }
        let none = RegionManagerError.areaTooLarge(radiusKm: 1, largestRadiusKm: 0, message: "even zoom 3 is too large")
        #expect(
            none.description == "An area of 1 km radius is larger than one purchase allows, and so is the smallest area at these zooms "
                + "(even zoom 3 is too large). Ask for a lower top zoom.")
    }

    @Test func quoteRefusalsAreTyped() async throws {
        let (client, server) = try Self.client { r in
            let body = (try? JSONDecoder().decode(AreaQuoteRequest.self, from: r.body)) ?? AreaQuoteRequest()
            return switch body.productId {
            case "com.test.region.co": Self.error(422, APIErrorBody(code: "not_an_area_product", message: "a region"))
            case "nope": Self.error(404, APIErrorBody(code: "unknown_product", message: "no such product"))
            default: Self.error(422, APIErrorBody(code: "invalid_area", message: "radiusKm must be more than 0 and at most 200"))
            }
        }
        defer { server.stop() }
        await #expect(throws: RegionManagerError.invalidArea("radiusKm must be more than 0 and at most 200")) {
            _ = try await client.quoteArea(AreaQuoteRequest(center: [0, 0], radiusKm: 0))
        }
        do {
            _ = try await client.quoteArea(AreaQuoteRequest(center: [0, 0], radiusKm: 1, productId: "com.test.region.co"))
            Issue.record("quoted a region")
        } catch let error as RegionManagerError {
            #expect(error == .notAnAreaProduct("com.test.region.co"))
            #expect(error.description.contains("or buy the whole region") && !error.description.contains("--"))
        }
        await #expect(throws: RegionManagerError.unknownProduct("nope")) {
            _ = try await client.quoteArea(AreaQuoteRequest(center: [0, 0], radiusKm: 1, productId: "nope"))
        }
    }

    @Test func quoteAndPurchaseRefusalsAreTyped() async throws {
        let (client, server) = try Self.client { r in
            switch (r.method, r.path) {
            case ("GET", "/api/v1/areas/quotes/q-gone"):
                Self.error(410, APIErrorBody(code: "quote_expired", message: "quote q-gone has expired"))
            case ("GET", _): Self.error(404, APIErrorBody(code: "unknown_quote", message: "no quote"))
            default:
                switch (try? JSONDecoder().decode(AreaPurchaseRequest.self, from: r.body))?.quoteId {
                case "q-used": Self.error(409, APIErrorBody(code: "quote_used", message: "quote q-used was already bought"))
                case "q-paid": Self.error(409, APIErrorBody(code: "transaction_used", message: "store transaction 2000001 already paid"))
                case "q-other":
                    Self.error(422, APIErrorBody(code: "wrong_product", message: "the transaction is for a, but the quote is for b"))
                default: Self.error(403, APIErrorBody(code: "invalid_transaction", message: "type Non-Consumable, expected Consumable"))
                }
            }
        }
        defer { server.stop() }
        do {
            _ = try await client.areaQuote(id: "q-gone")
            Issue.record("an expired quote was answered")
        } catch let error as RegionManagerError {
            #expect(error == .quoteExpired("q-gone"))
            #expect(error.description.contains("has expired; nothing was bought") && error.description.contains("Ask for a new quote"))
        }
        // A 404 about a quote is never "no region ... in the catalog".
        await #expect(throws: RegionManagerError.unknownQuote("q-x")) { _ = try await client.areaQuote(id: "q-x") }
        let jws = "a.b.c"
        await #expect(throws: RegionManagerError.quoteUsed("q-used")) {
            _ = try await client.buyArea(quoteId: "q-used", signedTransaction: jws)
        }
        await #expect(throws: RegionManagerError.transactionUsed(message: "store transaction 2000001 already paid")) {
            _ = try await client.buyArea(quoteId: "q-paid", signedTransaction: jws)
        }
        await #expect(throws: RegionManagerError.wrongAreaProduct(message: "the transaction is for a, but the quote is for b")) {
            _ = try await client.buyArea(quoteId: "q-other", signedTransaction: jws)
        }
        await #expect(
            throws: RegionManagerError.rejected(
                status: 403, code: "invalid_transaction",
                message: "type Non-Consumable, expected Consumable")
        ) {
            _ = try await client.buyArea(quoteId: "q-1", signedTransaction: jws)
        }
    }

    @Test func buyAreaPaysForTheQuotesProductWithASandboxTransaction() async throws {
        let seen = Mutex<[String]>([])
        let (client, server) = try Self.client { r in
            seen.withLock { $0.append("\(r.method) \(r.path) \(String(decoding: r.body, as: UTF8.self))") }
            switch (r.method, r.path) {
            case ("GET", "/api/v1/areas/quotes/q-1"): return StubStore.json(200, Self.quote)
            case ("POST", "/api/v1/sandbox/transactions"): return StubStore.json(201, SignedTransaction(signedTransaction: "h.p.s"))
            case ("POST", "/api/v1/areas"): return StubStore.json(201, Self.bought)
            default: return Self.error(404, APIErrorBody(code: "not_found", message: "no route"))
            }
        }
        defer { server.stop() }
        let tmp = TemporaryDirectory()
        let state = try LocalState(directory: tmp.file("state"))
        var account = AccountState(server: client.server.absoluteString)
        account.token = "tok"
        try state.saveAccount(account)
        let m = try RegionManager(
            state: state, server: client.server, installer: Installer(tilesDirectory: tmp.file("Tiles")),
            http: TestData.http())
        let outcome = try await m.buyArea(quoteId: "q-1")
        #expect(outcome.areaId == Self.bought.areaId && outcome.quote == Self.quote)
        let log = seen.withLock { $0 }
        #expect(log.count == 3)
        #expect(log[0] == "GET /api/v1/areas/quotes/q-1 ")
        #expect(log[1].hasPrefix("POST /api/v1/sandbox/transactions ") && log[1].contains(#""productId":"com.test.areas""#))
        #expect(
            log[2].hasPrefix("POST /api/v1/areas ") && log[2].contains(#""quoteId":"q-1""#)
                && log[2].contains(#""signedTransaction":"h.p.s""#))
    }
}
