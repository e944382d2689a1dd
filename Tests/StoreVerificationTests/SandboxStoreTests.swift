import Foundation
import SwiftASN1
import Testing
import TrailMapTestSupport
import X509
@testable import StoreVerification

@Suite(.computeThreads) struct SandboxStoreTests {
    @Test func initializeWritesTheFolder() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("sandbox")
        let store = try SandboxStore.initialize(directory: path, bundleId: "com.trailmap.app")
        let files = try FileManager.default.contentsOfDirectory(atPath: path).sorted()
        #expect(files == ["intermediate.pem", "leaf-key.pem", "leaf.pem", "root.pem", "store.json"])
        let keyMode = try FileManager.default.attributesOfItem(atPath: path + "/leaf-key.pem")[.posixPermissions] as? NSNumber
        #expect(keyMode?.intValue == 0o600)
        let config = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path + "/store.json"))) as? [String: Any]
        #expect(config?["bundleId"] as? String == "com.trailmap.app")
        #expect(config?["environment"] as? String == "Sandbox")
        #expect(try StoreCertificates.load(path: path + "/root.pem") == [store.rootCertificateDER])
    }

    @Test func refusesToOverwriteUnlessForced() throws {
        let dir = TemporaryDirectory()
        let first = try SandboxStore.initialize(directory: dir.path, bundleId: "a")
        #expect(throws: SandboxStoreError.alreadyExists(dir.path)) {
            try SandboxStore.initialize(directory: dir.path, bundleId: "b")
        }
        #expect(try SandboxStore(directory: dir.path).rootCertificateDER == first.rootCertificateDER)
        let second = try SandboxStore.initialize(directory: dir.path, bundleId: "b", force: true)
        #expect(second.rootCertificateDER != first.rootCertificateDER)
        #expect(try SandboxStore(directory: dir.path).bundleId == "b")
    }

    @Test func loadedStoreSignsLikeTheOriginal() async throws {
        let dir = TemporaryDirectory()
        let created = try SandboxStore.initialize(directory: URL(fileURLWithPath: dir.path), bundleId: "com.trailmap.app")
        let loaded = try SandboxStore(directory: URL(fileURLWithPath: dir.path))
        #expect(loaded.chainDER == created.chainDER)
        let (jws, _) = try loaded.signTransaction(productId: "p", appAccountToken: nil)
        _ = try await created.verifier().verifyTransaction(jws)
    }

    @Test func loadingAMissingOrBrokenStoreFails() throws {
        let dir = TemporaryDirectory()
        #expect(throws: SandboxStoreError.self) { try SandboxStore(directory: dir.path) }
        try SandboxStore.initialize(directory: dir.path, bundleId: "a")
        try "garbage".write(toFile: dir.file("leaf-key.pem"), atomically: true, encoding: .utf8)
        let error = #expect(throws: SandboxStoreError.self) { try SandboxStore(directory: dir.path) }
        #expect(error?.description.contains("leaf-key.pem") == true)
    }

    @Test func certificatesHaveApplesShape() throws {
        let fixture = try StoreFixture()
        let chain = try fixture.store.chainDER.map { try Certificate(derEncoded: Array($0)) }
        let (leaf, intermediate, root) = (chain[0], chain[1], chain[2])
        #expect(root.subject == root.issuer)
        #expect(intermediate.issuer == root.subject && leaf.issuer == intermediate.subject)
        #expect(try root.extensions.basicConstraints == .isCertificateAuthority(maxPathLength: nil))
        #expect(try intermediate.extensions.basicConstraints == .isCertificateAuthority(maxPathLength: 0))
        #expect(try leaf.extensions.basicConstraints == .notCertificateAuthority)
        let appleIntermediate = try #require(intermediate.extensions[oid: [1, 2, 840, 113635, 100, 6, 2, 1]])
        #expect(!appleIntermediate.critical && Array(appleIntermediate.value) == [0x05, 0x00])
        let appleLeaf = try #require(leaf.extensions[oid: [1, 2, 840, 113635, 100, 6, 11, 1]])
        #expect(!appleLeaf.critical && Array(appleLeaf.value) == [0x05, 0x00])
        #expect(leaf.signatureAlgorithm == .ecdsaWithSHA256)
    }

    @Test func transactionIdsAreUniqueNumericStrings() throws {
        let fixture = try StoreFixture()
        let ids = try (0..<200).map { _ in try fixture.purchase().transaction.transactionId }
        #expect(Set(ids).count == ids.count)
        #expect(ids.allSatisfy { $0.count == 16 && $0.allSatisfy(\.isASCII) && UInt64($0) != nil })
        let renewal = try fixture.store.signTransaction(productId: "p", appAccountToken: nil, originalTransactionId: ids[0])
        #expect(renewal.transaction.originalTransactionId == ids[0] && renewal.transaction.transactionId != ids[0])
    }

    @Test func storeCertificatesLoadsDERAndPEM() throws {
        let dir = TemporaryDirectory()
        let fixture = try StoreFixture()
        let der = dir.file("root.cer")
        try fixture.store.rootCertificateDER.write(to: URL(fileURLWithPath: der))
        #expect(try StoreCertificates.load(path: der) == [fixture.store.rootCertificateDER])
        let bundle = try fixture.store.chainDER.map {
            try Certificate(derEncoded: Array($0)).serializeAsPEM().pemString
        }.joined(separator: "\n")
        #expect(try StoreCertificates.parse(Data(bundle.utf8)) == fixture.store.chainDER)
        #expect(throws: StoreVerificationError.self) { try StoreCertificates.load(path: dir.file("missing.pem")) }
        #expect(throws: StoreVerificationError.self) { try StoreCertificates.parse(Data("not a cert".utf8)) }
    }
}
