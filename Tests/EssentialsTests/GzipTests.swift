import Essentials
import Foundation
import Testing
import TrailMapTestSupport

/// gzip decompression with a hard output limit (PMTiles directories and metadata are untrusted).
@Suite(.computeThreads) struct GzipTests {
    /// Bytes that compress a little, not a lot (like a directory).
    static let sample: [UInt8] = (0..<200_000).map { UInt8(truncatingIfNeeded: ($0 &* 2_654_435_761) >> 13) & 0x3f }

    @Test func roundTripsAndAcceptsExactlyTheLimit() throws {
        let packed = try #require(Gzip.compress(Self.sample))
        #expect(try Gzip.decompress(packed, limit: Self.sample.count) == Self.sample)
        #expect(try Gzip.decompress(packed, limit: 1 << 30) == Self.sample)
        #expect(try Gzip.decompress(try #require(Gzip.compress([])), limit: 0) == [])
        #expect(throws: GzipError.tooLarge(limit: Self.sample.count - 1)) { try Gzip.decompress(packed, limit: Self.sample.count - 1) }
    }

    @Test func aZipBombStopsAtTheLimit() throws {
        // 64 MiB of zeros compress to ~64 KiB; decompression stops at the limit.
        var zeros = [UInt8](repeating: 0, count: 64 << 20)
        let bomb = try #require(Gzip.compress(zeros, level: 9))
        zeros = []
        #expect(bomb.count < 1 << 20)
        #expect(throws: GzipError.tooLarge(limit: 8 << 20)) { try Gzip.decompress(bomb, limit: 8 << 20) }
    }

    @Test func refusesDamagedTruncatedAndTrailingData() throws {
        let packed = try #require(Gzip.compress(Self.sample))
        var flipped = packed
        flipped[packed.count / 2] ^= 0x55
        var badCRC = packed
        badCRC[packed.count - 6] ^= 1
        for (name, bytes) in [
            ("not gzip", Array("hello, world".utf8)), ("empty", []), ("cut short", Array(packed.prefix(packed.count / 2))),
            ("flipped", flipped), ("bad CRC", badCRC), ("trailing bytes", packed + [1, 2, 3])
        ] {
            do {
                _ = try Gzip.decompress(bytes, limit: 1 << 30)
                Issue.record("\(name): decompressed")
            } catch {
                guard case .corrupt = error else { Issue.record("\(name): \(error)"); continue }
                #expect(error.description.contains("damaged"))
            }
        }
    }
}
