@testable import StoreVerification
import Essentials
import Foundation
import Testing
import TrailMapTestSupport

/// A sandbox store in its own temporary folder.
struct StoreFixture {
    let dir: TemporaryDirectory
    let store: SandboxStore

    init(bundleId: String = "com.trailmap.app", options: SandboxStoreOptions = SandboxStoreOptions()) throws {
        dir = TemporaryDirectory()
        store = try SandboxStore.initialize(directory: dir.file("store"), bundleId: bundleId, options: options)
    }

    /// A verifier trusting this store's root.
    func verifier(
        environment: StoreEnvironment = .sandbox, bundleId: String = "com.trailmap.app",
        caches: Bool = true
    ) throws -> SignedDataVerifier {
        try SignedDataVerifier(
            rootCertificates: [store.rootCertificateDER], bundleId: bundleId,
            environment: environment, cachesVerifiedChains: caches)
    }

    /// A signed non-consumable purchase.
    func purchase(
        _ productId: String = "com.trailmap.region.colorado", now: Date = Date()
    ) throws -> (jws: String, transaction: JWSTransaction) {
        try store.signTransaction(productId: productId, appAccountToken: UUID(), price: 4990, currency: "USD", now: now)
    }
}

/// Builds JWS strings by hand, for malicious variants.
enum ForgedJWS {
    static func encode(_ json: String) -> String { Base64URL.encode(Data(json.utf8)) }

    static func header(alg: String, x5c: [Data]) -> String {
        let chain = x5c.map { "\"\($0.base64EncodedString())\"" }.joined(separator: ",")
        return encode("{\"alg\":\"\(alg)\",\"x5c\":[\(chain)]}")
    }

    /// The three parts of `jws`.
    static func parts(_ jws: String) -> [String] { jws.split(separator: ".", omittingEmptySubsequences: false).map(String.init) }

    /// The decoded payload of `jws` as a JSON object.
    static func payloadObject(_ jws: String) throws -> [String: Any] {
        let data = try #require(Base64URL.decode(Substring(parts(jws)[1])))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    /// `jws` with its payload replaced by `object`, keeping header and signature.
    static func replacingPayload(_ jws: String, with object: [String: Any]) throws -> String {
        let p = parts(jws)
        let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        return p[0] + "." + Base64URL.encode(data) + "." + p[2]
    }
}

/// Expects `body` to throw a `StoreVerificationError` matching `matches`.
func expectVerificationError(
    _ body: () async throws -> Void, sourceLocation: SourceLocation = #_sourceLocation,
    _ matches: (StoreVerificationError) -> Bool
) async {
    do {
        try await body()
        Issue.record("expected a StoreVerificationError, none was thrown", sourceLocation: sourceLocation)
    } catch let error as StoreVerificationError {
        #expect(matches(error), "unexpected error: \(error)", sourceLocation: sourceLocation)
        #expect(!error.description.isEmpty, sourceLocation: sourceLocation)
    } catch {
        Issue.record("expected a StoreVerificationError, got \(error)", sourceLocation: sourceLocation)
    }
}
