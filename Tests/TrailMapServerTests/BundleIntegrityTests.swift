import Essentials
import Foundation
import NIOCore
import Testing
@testable import TrailMapServer
import TrailMapTestSupport

/// A download is read from the file whose bytes were checked (issue "Hardening", the review's
/// note on BundleIntegrity): a bundle replaced between the check and the body is not sent under
/// the published ETag.
@Suite struct BundleIntegrityTests {
    @Test func theCheckedFileIsTheOneReadEvenAfterTheBundleIsReplaced() async throws {
        let dir = TemporaryDirectory()
        let path = dir.file("region.mbtiles")
        let published = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        try published.write(to: URL(fileURLWithPath: path))
        let sha = FileSHA256.hex(of: published)
        let integrity = BundleIntegrity()
        let file = try #require(await integrity.openPublished(path: path, size: Int64(published.count), sha256: sha))

        // Replaced by rename with other bytes of the same size, after the check.
        let other = Data(repeating: 0x5a, count: published.count)
        try other.write(to: URL(fileURLWithPath: dir.file("new.mbtiles")))
        #expect(rename(dir.file("new.mbtiles"), path) == 0)

        var read = Data()
        try await file.stream(0...Int64(published.count - 1)) { read.append(contentsOf: $0.readableBytesView) }
        #expect(read == published, "the body comes from the checked file")
        var tail = Data()
        try await file.stream(299_990...299_999) { tail.append(contentsOf: $0.readableBytesView) }
        #expect(tail == published.suffix(10))

        let again = await integrity.openPublished(path: path, size: Int64(published.count), sha256: sha)
        #expect(again == nil, "the replacement does not hold the published bytes")
        #expect(await integrity.openPublished(path: dir.file("missing.mbtiles"), size: 1, sha256: sha) == nil)
    }

    /// A file whose hash its writer recorded (an area quote's cut) is trusted for that identity
    /// only: no hash on its first download, and a hash as usual once the file changes.
    @Test func aPrimedIdentityIsTrustedUntilTheFileChanges() async throws {
        let dir = TemporaryDirectory()
        let path = dir.file("area.mbtiles")
        let bytes = Data((0..<50_000).map { UInt8(truncatingIfNeeded: $0 &* 13) })
        try bytes.write(to: URL(fileURLWithPath: path))
        let integrity = BundleIntegrity()
        // Primed with a made-up hash: had the file been hashed, it would not match.
        let recorded = String(repeating: "ab", count: 32)
        integrity.prime(path: path, identity: try #require(FileStat(path: path)), sha256: recorded)
        #expect(await integrity.openPublished(path: path, size: Int64(bytes.count), sha256: recorded) != nil, "not hashed again")
        // Rewritten (another identity): hashed, and the recorded hash no longer holds.
        try await Task.sleep(for: .milliseconds(10))
        try bytes.write(to: URL(fileURLWithPath: path))
        #expect(await integrity.openPublished(path: path, size: Int64(bytes.count), sha256: recorded) == nil)
        #expect(await integrity.openPublished(path: path, size: Int64(bytes.count), sha256: FileSHA256.hex(of: bytes)) != nil)

        // Primed verdicts are bounded (most quotes are never bought): the oldest is dropped.
        let identity = try #require(FileStat(path: path))
        integrity.prime(path: path, identity: identity, sha256: recorded)
        for i in 0..<BundleIntegrity.maxPrimed - 1 { integrity.prime(path: dir.file("quote-\(i)"), identity: identity, sha256: recorded) }
        #expect(await integrity.openPublished(path: path, size: Int64(bytes.count), sha256: recorded) != nil, "still primed")
        integrity.prime(path: dir.file("one-more"), identity: identity, sha256: recorded)
        #expect(await integrity.openPublished(path: path, size: Int64(bytes.count), sha256: recorded) == nil, "dropped, so hashed")
    }
}
