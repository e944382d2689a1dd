import Catalog
import CatalogSQLite
import StoreVerification
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing
@testable import TrailMapServer
import TrailMapTestSupport
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Every bad transaction, attack and bad request gets a clear 4xx and records nothing.
@Suite struct StoreRejectionTests {
    /// A JWS with its payload edited (the signature no longer matches).
    static func tampered(_ jws: String) -> String {
        let parts = jws.split(separator: ".").map(String.init)
        var b64 = parts[1].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while b64.count % 4 != 0 { b64 += "=" }
        let json = String(decoding: Data(base64Encoded: b64) ?? Data(), as: UTF8.self).replacingOccurrences(of: "colorado", with: "utah")
        let edited = Data(json.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        return [parts[0], edited, parts[2]].joined(separator: ".")
    }

    @Test func badTransactionsAreRefusedAndNothingIsRecorded() async throws {
        let f = try await computed { try StoreFixture() }
        let other = f.tiles.dir.file("other")
        let token = UUID()
        func store(
            _ name: String, bundle: String = StoreFixture.bundleId, _ edit: (inout SandboxStoreOptions) -> Void = { _ in }
        ) throws -> SandboxStore {
            var o = SandboxStoreOptions()
            edit(&o)
            return try SandboxStore.initialize(directory: other + name, bundleId: bundle, options: o)
        }
        let good = try f.sandbox.signTransaction(productId: "colorado", appAccountToken: nil).jws
        // Not shaped like a JWS: 400 (the OpenAPI document's pattern); well formed but not the
        // store's (signature, chain, claims): 403.
        let cases: [(String, String, HTTPResponse.Status)] = [
            ("tampered payload", Self.tampered(good), .forbidden),
            ("tampered signature", String(good.dropLast(4)) + (good.hasSuffix("AAAA") ? "BBBB" : "AAAA"), .forbidden),
            ("garbage", "not a jws", .badRequest),
            ("two parts", "abc.def", .badRequest),
            ("bad base64", "@@@.###.$$$", .badRequest),
            ("another root", try store("root").signTransaction(productId: "colorado", appAccountToken: nil).jws, .forbidden),
            (
                "no intermediate OID",
                try store("int") { $0.intermediateAppleOID = false }.signTransaction(productId: "colorado", appAccountToken: nil).jws,
                .forbidden
            ),
            (
                "no leaf OID",
                try store("leaf") { $0.leafAppleOID = false }.signTransaction(productId: "colorado", appAccountToken: nil).jws, .forbidden
            ),
            (
                "wrong bundle id",
                try store("bundle", bundle: "com.evil.app").signTransaction(productId: "colorado", appAccountToken: nil).jws, .forbidden
            ),
            (
                "wrong environment",
                try store("env") { $0.environment = .production }.signTransaction(productId: "colorado", appAccountToken: nil).jws,
                .forbidden
            ),
            ("consumable", try f.sandbox.signTransaction(productId: "colorado", appAccountToken: nil, type: "Consumable").jws, .forbidden),
            ("unknown product", try f.sandbox.signTransaction(productId: "nope", appAccountToken: nil).jws, .notFound),
            ("someone else's appAccountToken", try f.sandbox.signTransaction(productId: "colorado", appAccountToken: token).jws, .forbidden)
        ]
        try await f.app().test(.live) { client in
            let ann = try await APIUser.register(client, email: "ann@example.com")
            for (name, jws, status) in cases {
                let r = try await ann.call(.post, "/api/v1/purchases", ["signedTransaction": jws])
                #expect(r.status == status, "\(name)")
                #expect(StoreFixture.errorCode(r) != nil, "\(name): JSON error body")
            }
            let ents = StoreFixture.json(try await ann.call(.get, "/api/v1/entitlements"))["entitlements"] as? [Any]
            #expect(ents?.isEmpty == true)
            #expect(try f.catalog.auditLog().isEmpty)
        }
    }

    @Test func accountsCannotUseEachOthersPurchasesOrTokens() async throws {
        let f = try await computed { try StoreFixture() }
        try await f.app().test(.live) { client in
            let ann = try await APIUser.register(client, email: "ann@example.com")
            let bob = try await APIUser.register(client, email: "bob@example.com")
            let t = StoreFixture.json(try await ann.call(.post, "/api/v1/sandbox/transactions", ["productId": "colorado"]))
            let jws = try #require(t["signedTransaction"] as? String)
            #expect(try await ann.call(.post, "/api/v1/purchases", ["signedTransaction": jws]).status == .created)
            let claimed = try await bob.call(.post, "/api/v1/purchases", ["signedTransaction": jws])
            #expect(claimed.status == .forbidden || claimed.status == .conflict)
            // A transaction made out to Ann's appAccountToken cannot be claimed by Bob either.
            let annToken = try #require(UUID(uuidString: ann.appAccountToken))
            let forAnn = try f.sandbox.signTransaction(productId: "utah", appAccountToken: annToken).jws
            let r = try await bob.call(.post, "/api/v1/purchases", ["signedTransaction": forAnn])
            #expect(r.status == .forbidden && StoreFixture.errorCode(r) == "account_token_mismatch")
            #expect(try await bob.call(.get, "/api/v1/downloads/colorado").status == .forbidden)
            let bobDevice = StoreFixture.json(try await bob.call(.post, "/api/v1/devices", ["name": "b"]))["deviceId"] as? String ?? ""
            #expect(try await ann.call(.put, "/api/v1/devices/\(bobDevice)/installs/colorado", ["version": 1]).status == .notFound)
            let fake = APIUser(client: client, token: "forged-token", appAccountToken: "")
            let r401 = try await fake.call(.get, "/api/v1/entitlements")
            #expect(r401.status == .unauthorized && r401.headers[.wwwAuthenticate] != nil)
        }
    }

    @Test func badRequestsGetClear4xx() async throws {
        let f = try await computed { try StoreFixture() }
        try await f.app().test(.live) { client in
            let ann = try await APIUser.register(client, email: "ann@example.com")
            let big = String(repeating: "x", count: 70_000)
            let cases: [(HTTPRequest.Method, String, ByteBuffer?, HTTPFields, HTTPResponse.Status)] = [
                (.post, "/api/v1/purchases", ByteBuffer(string: "{\"signedTransaction\": \"\(big)\"}"), [:], .badRequest),
                (.post, "/api/v1/purchases", ByteBuffer(string: "{not json"), [:], .badRequest),
                (.post, "/api/v1/purchases", ByteBuffer(string: "{\"signedTransaction\": 5}"), [:], .badRequest),
                (.post, "/api/v1/purchases", ByteBuffer(string: "x"), [.contentType: "text/plain"], .unsupportedMediaType),
                (.patch, "/api/v1/catalog", nil, [:], .methodNotAllowed),
                (.get, "/api/v1/catalog/x'%20OR%201=1", nil, [:], .badRequest),
                (.get, "/api/v1/downloads/..%2F..%2Fetc%2Fpasswd", nil, [:], .badRequest),
                (.get, "/api/v1/downloads/%2Fetc%2Fpasswd", nil, [:], .badRequest),
                (.get, "/api/v1/nothing", nil, [:], .notFound),
                (.post, "/api/v1/accounts", ByteBuffer(string: "{\"email\": \"a@b.co\", \"password\": \"short\"}"), [:], .badRequest),
                (
                    .post, "/api/v1/accounts", ByteBuffer(string: "{\"email\": \"ann@example.com\", \"password\": \"long enough pw\"}"),
                    [:], .conflict
                ),
                (
                    .post, "/api/v1/sessions", ByteBuffer(string: "{\"email\": \"ann@example.com\", \"password\": \"wrong password\"}"),
                    [:], .unauthorized
                ),
                (
                    .post, "/api/v1/sandbox/notifications",
                    ByteBuffer(string: "{\"notificationType\": \"REFUND\", \"transactionId\": \"1' OR 1=1\"}"), [:], .notFound
                ),
                (.put, "/api/v1/devices/nope/installs/base", ByteBuffer(string: "{\"version\": 1}"), [:], .notFound)
            ]
            for (method, uri, body, extra, status) in cases {
                var headers: HTTPFields = [.authorization: "Bearer \(ann.token)", .contentType: "application/json"]
                for field in extra { headers[field.name] = field.value }
                let r = try await client.execute(uri: uri, method: method, headers: headers, body: body)
                #expect(r.status == status, "\(method) \(uri.prefix(60))")
                #expect(StoreFixture.errorCode(r) != nil, "\(method) \(uri.prefix(60)): JSON error body")
            }
        }
    }

    @Test func aHundredConcurrentPostsOfOneTransactionRecordOnce() async throws {
        let f = try await computed { try StoreFixture() }
        let db = f.catalog
        try await f.app().test(.live) { client in
            let ann = try await APIUser.register(client, email: "ann@example.com")
            let t = StoreFixture.json(try await ann.call(.post, "/api/v1/sandbox/transactions", ["productId": "colorado"]))
            let jws = try #require(t["signedTransaction"] as? String)
            let port = try #require(client.port)
            let body = try JSONSerialization.data(withJSONObject: ["signedTransaction": jws])
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<100 {
                    group.addTask {
                        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)/api/v1/purchases")!)
                        request.httpMethod = "POST"
                        request.httpBody = body
                        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
                        request.setValue("Bearer \(ann.token)", forHTTPHeaderField: "Authorization")
                        let (_, response) = try await URLSession.shared.data(for: request)
                        return (response as? HTTPURLResponse)?.statusCode ?? 0
                    }
                }
                return try await group.reduce(into: [Int: Int]()) { $0[$1, default: 0] += 1 }
            }
            #expect(statuses == [201: 1, 200: 99])
            let account = try db.authenticate(token: ann.token)
            #expect(try db.entitlements(account: account).count == 1)
            #expect(try db.auditLog().filter { $0.action == "grant" }.count == 1)
        }
    }
}
