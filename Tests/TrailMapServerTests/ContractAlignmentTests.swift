import Catalog
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
@testable import TrailMapServer
import TrailMapTestSupport

/// The review's schemathesis mismatches (issue "Hardening"): what the OpenAPI document allows the
/// server accepts, and what it forbids the server refuses. scripts/contract-test.sh runs
/// schemathesis itself; these pin the rules the document and the code must share.
@Suite struct ContractAlignmentTests {
    static func matches(_ pattern: String, _ s: String) -> Bool {
        let re = try? NSRegularExpression(pattern: pattern)
        return re?.firstMatch(in: s, range: NSRange(s.startIndex..., in: s)) != nil
    }

    @Test func theEmailPatternAndTheServersCheckAgree() {
        let samples = [
            "ann@example.com", "a.b+c@x-y.example.org", "0@0.0", "", "ann", "ann@", "@x.io", "ann@x", "ann@x.",
            "ann@.x", "a b@x.io", "ann@x..io", "ännä@x.io", "ann@x_y.io", "'; DROP TABLE accounts; --@x.io", "a@b@c.io"
        ]
        for s in samples {
            #expect(Self.matches(AccountRules.emailPattern, s) == AccountRules.isEmailForTesting(s), "\(s)")
        }
    }

    @Test func theJWSPatternAndTheServersCheckAgree() {
        for s in ["a.b.c", "eyJh.eyJi.c2ln", "", "a.b", "a..c", "a.b.c.d", "a.b.c=", "a b.c.d", "@@@.###.$$$", "ä.b.c"] {
            #expect(Self.matches(OpenAPIDocument.jwsPattern, s) == StoreAPI.isCompactJWS(s), "\(s)")
        }
    }

    @Test func nullNamesAndUnpublishedVersionsAreRefusedAsDocumented() async throws {
        let f = try await computed { try StoreFixture() }
        try await f.app().test(.live) { client in
            let ann = try await APIUser.register(client, email: "ann@example.com")
            let null = try await ann.call(.post, "/api/v1/devices", ["name": NSNull()])
            #expect(null.status == .badRequest, "a null name is schema-invalid")
            let none = try await ann.call(.post, "/api/v1/devices", [String: Any]())
            #expect(none.status == .created, "a missing name is allowed")
            let device = StoreFixture.json(none)["deviceId"] as? String ?? ""
            let r = try await ann.call(.put, "/api/v1/devices/\(device)/installs/base", ["version": 7])
            #expect(r.status == .notFound && StoreFixture.errorCode(r) == "unknown_version", "\(r.status)")
            let empty = try await ann.call(.post, "/api/v1/purchases", ["signedTransaction": ""])
            #expect(empty.status == .badRequest && StoreFixture.errorCode(empty) == "invalid_transaction")
        }
    }
}
