@testable import StoreVerification
import Crypto
import Essentials
import Foundation
import Testing
import TrailMapTestSupport

@Suite(.computeThreads) struct SignedDataVerifierTests {
    @Test func validTransactionVerifies() async throws {
        let fixture = try StoreFixture()
        let token = UUID()
        let (jws, signed) = try fixture.store.signTransaction(
            productId: "com.trailmap.region.colorado", appAccountToken: token, price: 4990, currency: "USD")
        let transaction = try await fixture.verifier().verifyTransaction(jws)
        #expect(transaction == signed)
        #expect(transaction.productId == "com.trailmap.region.colorado")
        #expect(transaction.appAccountUUID == token)
        #expect(transaction.originalTransactionId == transaction.transactionId)
        #expect(transaction.type == "Non-Consumable")
        #expect(transaction.environment == "Sandbox")
        #expect(transaction.price == 4990 && transaction.currency == "USD")
    }

    @Test func tamperedPayloadFails() async throws {
        let fixture = try StoreFixture()
        let (jws, _) = try fixture.purchase()
        var object = try ForgedJWS.payloadObject(jws)
        object["productId"] = "com.trailmap.region.california"
        let forged = try ForgedJWS.replacingPayload(jws, with: object)
        await expectVerificationError({ _ = try await fixture.verifier().verifyTransaction(forged) }) { $0 == .badSignature }
    }

    @Test func tamperedSignatureFails() async throws {
        let fixture = try StoreFixture()
        let (jws, _) = try fixture.purchase()
        var p = ForgedJWS.parts(jws)
        var signature = try #require(Base64URL.decode(Substring(p[2])))
        signature[10] ^= 0x01
        p[2] = Base64URL.encode(signature)
        await expectVerificationError({ _ = try await fixture.verifier().verifyTransaction(p.joined(separator: ".")) }) {
            $0 == .badSignature
        }
        // A signature of the wrong length, and another key's valid signature over the same input.
        p[2] = Base64URL.encode(signature.prefix(63))
        await expectVerificationError({ _ = try await fixture.verifier().verifyTransaction(p.joined(separator: ".")) }) {
            $0 == .badSignature
        }
    }

    @Test func signatureByAnotherKeyWithTheTrustedChainFails() async throws {
        let trusted = try StoreFixture()
        let attacker = try StoreFixture()
        let (jws, _) = try attacker.purchase()
        let p = ForgedJWS.parts(jws)
        // The attacker's signature over a header that names the trusted chain.
        let header = ForgedJWS.header(alg: "ES256", x5c: trusted.store.chainDER)
        let signature = try attacker.store.leafKey.signature(for: Data((header + "." + p[1]).utf8))
        let forged = header + "." + p[1] + "." + Base64URL.encode(signature.rawRepresentation)
        await expectVerificationError({ _ = try await trusted.verifier().verifyTransaction(forged) }) { $0 == .badSignature }
    }

    @Test(arguments: ["none", "HS256", "RS256", "ES384"])
    func otherAlgorithmsFail(alg: String) async throws {
        let fixture = try StoreFixture()
        let (jws, _) = try fixture.purchase()
        let p = ForgedJWS.parts(jws)
        let forged = ForgedJWS.header(alg: alg, x5c: fixture.store.chainDER) + "." + p[1] + "." + (alg == "none" ? "" : p[2])
        await expectVerificationError({ _ = try await fixture.verifier().verifyTransaction(forged) }) {
            $0 == .unsupportedAlgorithm(alg)
        }
    }

    @Test(arguments: [0, 1, 2, 4])
    func chainOfOtherLengthFails(count: Int) async throws {
        let fixture = try StoreFixture()
        let (jws, _) = try fixture.purchase()
        let p = ForgedJWS.parts(jws)
        let chain = fixture.store.chainDER
        let x5c = count <= 3 ? Array(chain.prefix(count)) : chain + [chain[2]]
        let forged = ForgedJWS.header(alg: "ES256", x5c: x5c) + "." + p[1] + "." + p[2]
        await expectVerificationError({ _ = try await fixture.verifier().verifyTransaction(forged) }) {
            $0 == .missingCertificateChain(count: count)
        }
        let noX5c = ForgedJWS.encode("{\"alg\":\"ES256\"}") + "." + p[1] + "." + p[2]
        await expectVerificationError({ _ = try await fixture.verifier().verifyTransaction(noX5c) }) {
            $0 == .missingCertificateChain(count: 0)
        }
    }

    @Test func chainToAnotherRootFails() async throws {
        let trusted = try StoreFixture()
        let other = try StoreFixture()
        let (jws, _) = try other.purchase()
        await expectVerificationError({ _ = try await trusted.verifier().verifyTransaction(jws) }) { $0 == .untrustedRoot }
        // The other chain presented with the trusted root at its end: the root matches, the chain does not.
        let p = ForgedJWS.parts(jws)
        let chain = [other.store.chainDER[0], other.store.chainDER[1], trusted.store.rootCertificateDER]
        let forged = ForgedJWS.header(alg: "ES256", x5c: chain) + "." + p[1] + "." + p[2]
        await expectVerificationError({ _ = try await trusted.verifier().verifyTransaction(forged) }) {
            if case .invalidChain = $0 { return true } else { return false }
        }
    }

    @Test func intermediateWithoutAppleOIDFails() async throws {
        var options = SandboxStoreOptions()
        options.intermediateAppleOID = false
        let fixture = try StoreFixture(options: options)
        let (jws, _) = try fixture.purchase()
        await expectVerificationError({ _ = try await fixture.verifier().verifyTransaction(jws) }) {
            $0 == .missingAppleOID(.intermediate)
        }
    }

    @Test func leafWithoutAppleOIDFails() async throws {
        var options = SandboxStoreOptions()
        options.leafAppleOID = false
        let fixture = try StoreFixture(options: options)
        let (jws, _) = try fixture.purchase()
        await expectVerificationError({ _ = try await fixture.verifier().verifyTransaction(jws) }) { $0 == .missingAppleOID(.leaf) }
    }

    @Test func wrongBundleIdFails() async throws {
        let fixture = try StoreFixture(bundleId: "com.other.app")
        let (jws, _) = try fixture.purchase()
        await expectVerificationError({ _ = try await fixture.verifier().verifyTransaction(jws) }) {
            $0 == .wrongBundleId(expected: "com.trailmap.app", got: "com.other.app")
        }
    }

    @Test func wrongEnvironmentFails() async throws {
        let fixture = try StoreFixture()
        let (jws, _) = try fixture.purchase()
        await expectVerificationError({ _ = try await fixture.verifier(environment: .production).verifyTransaction(jws) }) {
            $0 == .wrongEnvironment(expected: .production, got: "Sandbox")
        }
    }

    @Test(arguments: ["Consumable", "Auto-Renewable Subscription", "Non-Renewing Subscription"])
    func otherTypesFailButDecode(type: String) async throws {
        let fixture = try StoreFixture()
        let (jws, _) = try fixture.store.signTransaction(productId: "coins", appAccountToken: nil, type: type)
        await expectVerificationError({ _ = try await fixture.verifier().verifyTransaction(jws) }) {
            $0 == .notNonConsumable(type: type)
        }
        #expect(try await fixture.verifier().decodeTransaction(jws).type == type)
    }

    @Test(arguments: ["", "garbage", "a.b", "a.b.c.d", "!!!.abc.def", "e30.e30", "a.b.c"])
    func malformedJWSFails(text: String) async throws {
        let fixture = try StoreFixture()
        await expectVerificationError({ _ = try await fixture.verifier().verifyTransaction(text) }) {
            if case .malformedJWS = $0 { return true } else { return false }
        }
    }

    @Test func badJSONFails() async throws {
        let fixture = try StoreFixture()
        let (jws, _) = try fixture.purchase()
        let p = ForgedJWS.parts(jws)
        let badHeader = ForgedJWS.encode("{not json") + "." + p[1] + "." + p[2]
        await expectVerificationError({ _ = try await fixture.verifier().verifyTransaction(badHeader) }) {
            if case .malformedJWS = $0 { return true } else { return false }
        }
        for payload in ["{not json", "[]", "{\"transactionId\": 5}", "{}"] {
            let forged = p[0] + "." + ForgedJWS.encode(payload) + "." + p[2]
            await expectVerificationError({ _ = try await fixture.verifier().verifyTransaction(forged) }) {
                if case .malformedPayload = $0 { return true } else { return false }
            }
        }
        let badCert = ForgedJWS.encode("{\"alg\":\"ES256\",\"x5c\":[\"%%%\",\"AA==\",\"AA==\"]}") + "." + p[1] + "." + p[2]
        await expectVerificationError({ _ = try await fixture.verifier().verifyTransaction(badCert) }) {
            if case .malformedCertificate = $0 { return true } else { return false }
        }
    }

    @Test func expiredLeafFails() async throws {
        var options = SandboxStoreOptions()
        options.notValidBefore = Date().addingTimeInterval(-3 * 86400)
        options.leafNotValidAfter = Date().addingTimeInterval(-86400)
        let fixture = try StoreFixture(options: options)
        let (jws, _) = try fixture.purchase()
        await expectVerificationError({ _ = try await fixture.verifier().verifyTransaction(jws) }) {
            if case .invalidChain(let reason) = $0 { return !reason.isEmpty } else { return false }
        }
        // Apple validates at signedDate: a transaction signed while the leaf was valid still verifies.
        let (old, _) = try fixture.purchase(now: Date().addingTimeInterval(-2 * 86400))
        #expect(try await fixture.verifier().verifyTransaction(old).productId == "com.trailmap.region.colorado")
    }

    @Test func notYetValidLeafFails() async throws {
        var options = SandboxStoreOptions()
        options.notValidBefore = Date().addingTimeInterval(86400)
        let fixture = try StoreFixture(options: options)
        let (jws, _) = try fixture.purchase()
        await expectVerificationError({ _ = try await fixture.verifier().verifyTransaction(jws) }) {
            if case .invalidChain = $0 { return true } else { return false }
        }
    }

    @Test func misconfiguredRootsAreRefused() throws {
        #expect(throws: StoreVerificationError.self) {
            try SignedDataVerifier(rootCertificates: [], bundleId: "b", environment: .sandbox)
        }
        #expect(throws: StoreVerificationError.self) {
            try SignedDataVerifier(rootCertificates: [Data("nope".utf8)], bundleId: "b", environment: .sandbox)
        }
    }
}
