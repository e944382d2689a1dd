import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import TrailMapTestSupport
@testable import TrailMapServer

/// The non-tile routes go through Hummingbird's router and its middleware (issue "Hardening",
/// architecture): per-path 405s with the path's own `Allow`, JSON 404s, HEAD from GET, CORS
/// preflight, the path limit, and each request counted under its route's label.
@Suite struct RouterTests {
    @Test func aKnownPathAnswersOtherMethodsWith405AndItsOwnMethods() async throws {
        let f = try await computed { try StoreFixture() }
        try await f.app().test(.live) { client in
            let cases: [(HTTPRequest.Method, String, String)] = [
                (.get, "/api/v1/purchases", "POST, OPTIONS"),
                (.patch, "/api/v1/catalog", "GET, HEAD, OPTIONS"),
                (.post, "/api/v1/catalog/base", "GET, HEAD, OPTIONS"),
                (.get, "/api/v1/sessions", "POST, DELETE, OPTIONS"),
                (.post, "/api/v1/devices/d1/installs/base", "PUT, DELETE, OPTIONS"),
                (.delete, "/tiles/world/0/0/0.png", "GET, HEAD, OPTIONS"),
                (.put, "/healthz", "GET, HEAD, OPTIONS"),
                (.trace, "/api/v1/catalog", "GET, HEAD, OPTIONS"),
                (.trace, "/api/v1/accounts", "POST, OPTIONS"),
                (HTTPRequest.Method("QUERY")!, "/api/v1/entitlements", "GET, HEAD, OPTIONS"),
                (HTTPRequest.Method("QUERY")!, "/tiles/world/0/0/0.png", "GET, HEAD, OPTIONS"),
                (HTTPRequest.Method("QUERY")!, "/api/v1/devices/d1/installs/base", "PUT, DELETE, OPTIONS"),
                (.get, "/admin/memory-pressure", "POST, OPTIONS")
            ]
            for (method, path, allow) in cases {
                let r = try await client.execute(uri: path, method: method)
                // The admin routes are off here: their guard answers before the method is looked at.
                if path.hasPrefix("/admin/") {
                    #expect(r.status == .notFound, "\(path)")
                    continue
                }
                #expect(r.status == .methodNotAllowed, "\(method) \(path): \(r.status)")
                #expect(r.headers[.allow] == allow, "\(method) \(path): \(r.headers[.allow] ?? "-")")
                #expect(StoreFixture.errorCode(r) == "method_not_allowed")
            }
        }
    }

    @Test func unknownPathsAreJSON404sNamingWhereToLook() async throws {
        let f = try await computed { try StoreFixture() }
        try await f.app().test(.live) { client in
            let api = try await client.execute(uri: "/api/v1/nothing/here", method: .get)
            #expect(api.status == .notFound && StoreFixture.errorCode(api) == "not_found")
            #expect(
                (StoreFixture.json(api)["error"] as? [String: Any])?["message"] as? String ?? ""
                    == "no API route /api/v1/nothing/here; see /api/v1/openapi.json")
            let page = try await client.execute(uri: "/nothing", method: .post)
            #expect(page.status == .notFound && page.headers[.contentType]?.hasPrefix("application/json") == true)
            let notJSON = try await client.execute(uri: "/tiles/world.xml", method: .get)
            #expect(notJSON.status == .notFound && StoreFixture.errorCode(notJSON) == "not_found")
            let long = try await client.execute(uri: "/" + String(repeating: "a", count: 2100), method: .get)
            #expect(long.status == .badRequest && StoreFixture.errorCode(long) == "bad_request")
        }
    }

    @Test func headIsAnsweredFromGetWithoutABody() async throws {
        let f = try await computed { try StoreFixture() }
        try await f.app().test(.live) { client in
            for path in ["/healthz", "/api/v1/catalog", "/api/v1/openapi.json", "/tiles/world.json", "/tiles"] {
                let get = try await client.execute(uri: path, method: .get)
                let head = try await client.execute(uri: path, method: .head)
                #expect(get.status == .ok && head.status == .ok, "\(path)")
                #expect(get.body.readableBytes > 0 && head.body.readableBytes == 0, "\(path)")
                #expect(head.headers[.contentType] == get.headers[.contentType], "\(path)")
            }
        }
    }

    @Test func preflightsAreAnsweredEverywhereButAdmin() async throws {
        let f = try await computed { try StoreFixture() }
        try await f.app().test(.live) { client in
            for path in ["/api/v1/purchases", "/tiles/co/3/1/1.png", "/api/v1/no-such-route"] {
                let r = try await client.execute(uri: path, method: .options, headers: [.origin: "https://app.example"])
                #expect(r.status == .noContent, "\(path)")
                #expect(r.headers[.accessControlAllowMethods] == "GET, HEAD, POST, PUT, DELETE, OPTIONS", "\(path)")
                #expect(r.headers[.accessControlAllowOrigin] == "*")
            }
            let admin = try await client.execute(uri: "/admin/cache", method: .options)
            #expect(admin.status == .notFound, "no preflight for the admin routes (off here): \(admin.status)")
            #expect(admin.headers[.accessControlAllowMethods] == nil)
            let missing = try await client.execute(uri: "/api/v1/nothing", method: .get)
            #expect(missing.headers[.accessControlAllowOrigin] == "*", "errors carry CORS too")
        }
    }

    @Test func requestsAreCountedUnderTheirRoutesLabel() async throws {
        let f = try await computed { try StoreFixture() }
        try await f.app().test(.live) { client in
            _ = try await client.execute(uri: "/api/v1/catalog", method: .get)
            _ = try await client.execute(uri: "/api/v1/catalog", method: .patch)
            _ = try await client.execute(uri: "/api/v1/downloads/base", method: .get)
            _ = try await client.execute(uri: "/tiles/world.json", method: .get)
            _ = try await client.execute(uri: "/no/such/page", method: .get)
            let text = String(buffer: try await client.execute(uri: "/metrics", method: .get).body)
            for line in [
                #"route="api",status="200""#, #"route="api",status="405""#, #"route="download",status="401""#,
                #"route="tilejson",status="200""#, #"route="other",status="404""#
            ] {
                #expect(text.contains("trailmap_http_requests_total{\(line)} 1"), "\(line)")
            }
        }
    }
}
