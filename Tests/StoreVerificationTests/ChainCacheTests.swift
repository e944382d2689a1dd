import Crypto
import Foundation
import Testing
import TrailMapTestSupport
@testable import StoreVerification

/// A settable clock for cache expiry.
final class TestClock: @unchecked Sendable {
    private let lock = NSLock()
    private var current = Date()
    var now: Date { lock.withLock { current } }
    func advance(_ seconds: TimeInterval) { lock.withLock { current += seconds } }
}

@Suite(.computeThreads) struct ChainCacheTests {
    @Test func secondVerificationIsCached() async throws {
        let fixture = try StoreFixture()
        let verifier = try fixture.verifier()
        #expect(verifier.cachedChainCount == 0)
        _ = try await verifier.verifyTransaction(try fixture.purchase().jws)
        #expect(verifier.cachedChainCount == 1)
        _ = try await verifier.verifyTransaction(try fixture.purchase().jws)
        #expect(verifier.cachedChainCount == 1)
        #expect(try fixture.verifier(caches: false).cachedChainCount == 0)
    }

    @Test func badDataAfterAGoodChainStillFails() async throws {
        let fixture = try StoreFixture()
        let other = try StoreFixture()
        let verifier = try fixture.verifier()
        let (good, _) = try fixture.purchase()
        _ = try await verifier.verifyTransaction(good)
        // Another root after a cached good chain.
        await expectVerificationError({ _ = try await verifier.verifyTransaction(try other.purchase().jws) }) { $0 == .untrustedRoot }
        // The cached chain with a tampered payload: the signature is still checked.
        var object = try ForgedJWS.payloadObject(good)
        object["productId"] = "com.trailmap.region.utah"
        let tampered = try ForgedJWS.replacingPayload(good, with: object)
        await expectVerificationError({ _ = try await verifier.verifyTransaction(tampered) }) { $0 == .badSignature }
        // A chain that differs from the cached one in the intermediate only.
        let p = ForgedJWS.parts(good)
        let mixed = [fixture.store.chainDER[0], other.store.chainDER[1], fixture.store.rootCertificateDER]
        let forged = ForgedJWS.header(alg: "ES256", x5c: mixed) + "." + p[1] + "." + p[2]
        await expectVerificationError({ _ = try await verifier.verifyTransaction(forged) }) {
            if case .invalidChain = $0 { return true } else { return false }
        }
        // Claims are still checked on a cache hit.
        await expectVerificationError({ _ = try await fixture.verifier(environment: .production).verifyTransaction(good) }) {
            if case .wrongEnvironment = $0 { return true } else { return false }
        }
        #expect(verifier.cachedChainCount == 1)
        _ = try await verifier.verifyTransaction(good)
    }

    @Test func cachedChainIsNotValidOutsideItsValidity() async throws {
        var options = SandboxStoreOptions()
        options.leafNotValidAfter = Date().addingTimeInterval(3600)
        let fixture = try StoreFixture(options: options)
        let verifier = try fixture.verifier()
        _ = try await verifier.verifyTransaction(try fixture.purchase().jws)
        #expect(verifier.cachedChainCount == 1)
        let (late, _) = try fixture.purchase(now: Date().addingTimeInterval(7200))
        await expectVerificationError({ _ = try await verifier.verifyTransaction(late) }) {
            if case .invalidChain = $0 { return true } else { return false }
        }
    }

    @Test func entriesExpireAfterFifteenMinutesAndTheCacheIsBounded() async throws {
        let clock = TestClock()
        let fixture = try StoreFixture()
        let verifier = try SignedDataVerifier(
            rootCertificates: [fixture.store.rootCertificateDER], bundleId: "com.trailmap.app",
            environment: .sandbox, clock: { clock.now })
        let (jws, _) = try fixture.purchase()
        _ = try await verifier.verifyTransaction(jws)
        clock.advance(16 * 60)
        _ = try await verifier.verifyTransaction(jws)
        #expect(verifier.cachedChainCount == 1)

        let cache = VerifiedChainCache()
        let key = fixture.store.leafKey.publicKey
        let now = Date()
        for i in 0..<40 {
            cache.insert(
                key, for: Data([UInt8(i)]), validFrom: .distantPast, validUntil: .distantFuture,
                now: now.addingTimeInterval(Double(i)))
        }
        #expect(cache.count == VerifiedChainCache.maximumCount)
        #expect(cache.publicKey(for: Data([39]), now: now, validationTime: now) != nil)
        #expect(cache.publicKey(for: Data([0]), now: now, validationTime: now) == nil)
        #expect(cache.publicKey(for: Data([39]), now: now.addingTimeInterval(16 * 60 + 39), validationTime: now) == nil)
    }

    @Test func concurrentVerificationsAgree() async throws {
        let fixture = try StoreFixture()
        let verifier = try fixture.verifier()
        let signed = try (0..<16).map { _ in try fixture.purchase().jws }
        try await withThrowingTaskGroup(of: String.self) { group in
            for jws in signed { group.addTask { try await verifier.verifyTransaction(jws).transactionId } }
            var ids = Set<String>()
            for try await id in group { ids.insert(id) }
            #expect(ids.count == 16)
        }
        #expect(verifier.cachedChainCount == 1)
    }
}
