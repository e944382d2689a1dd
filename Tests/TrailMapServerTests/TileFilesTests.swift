import Foundation
import NIOCore
import Testing
import TileCache
@testable import TrailMapServer

/// `TileFiles`, the tile loops' sealed copies of large tiles: which bodies earn a copy, that a
/// copy always holds its body's bytes, its limits, and which copy goes to make room.
@Suite struct TileFilesTests {
    static let size = 40_000
    /// What a copy of `size` bytes takes (whole pages).
    static let cost = TileFiles.cost(of: size)

    /// A body as the cache keeps one (`CachedTile(bytes:)`: malloc'd storage of exactly its
    /// size), its bytes drawn from `seed`.
    static func body(_ count: Int = size, seed: Int) -> ByteBuffer {
        var numbers = ProfileJSONTests.Seeded(state: UInt64(truncatingIfNeeded: seed))
        let bytes = (0..<count).map { _ in UInt8(truncatingIfNeeded: numbers.next()) }
        return CachedTile(bytes: bytes, etag: "\"\(seed)\"").buffer
    }

    /// What file `fd` holds, read from its start.
    static func contents(_ fd: Int32) -> [UInt8] {
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = pread(fd, &chunk, chunk.count, off_t(out.count))
            if n <= 0 { return out }
            out += chunk[..<n]
        }
    }

    /// One second of the loop's clock, in nanoseconds.
    static let second: UInt64 = 1_000_000_000

    @Test func aLargeBodyAskedForAgainIsCopiedIntoASealedFileOfItsBytes() throws {
        let files = TileFiles(byteLimit: 1 << 20, now: 0)
        let small = Self.body(TileFiles.minimumBytes - 1, seed: 1)
        for _ in 0..<3 { #expect(files.file(for: small, now: 0) == nil, "a body below the minimum is sent from its buffer") }
        let large = Self.body(seed: 2)
        #expect(files.file(for: large, now: 0) == nil, "not on its first ask")
        let fd = try #require(files.file(for: large, now: 0))
        #expect(Self.contents(fd) == Array(large.readableBytesView))
        #expect(files.file(for: large, now: 0) == fd && files.count == 1 && files.bytes == Self.cost)
        // Sealed: nothing may write to it or grow it.
        var byte: UInt8 = 0
        let written = pwrite(fd, &byte, 1, 0)
        let writeError = errno
        #expect(written == -1 && writeError == EPERM)
        #expect(ftruncate(fd, off_t(2 * Self.size)) == -1)
        let tooLarge = Self.body(2 << 20, seed: 3)
        for _ in 0..<3 { #expect(files.file(for: tooLarge, now: 0) == nil, "a body larger than the limit is never copied") }
        files.removeAll()
        #expect(files.count == 0 && files.bytes == 0)
    }

    /// The key is where a body's bytes are: a buffer freed and another made in its place may get
    /// the same address. The copy keeps its buffer alive, so the file sent for a body holds that
    /// body's bytes, never an earlier buffer's.
    @Test func theFileSentForABodyHoldsThatBodysBytesAfterOthersAreFreed() throws {
        let files = TileFiles(byteLimit: 8 * Self.cost, now: 0)
        var now: UInt64 = 0
        var copies = 0
        for round in 0..<300 {
            now += Self.second
            let buffer = Self.body(seed: round)
            for _ in 0..<3 {
                guard let fd = files.file(for: buffer, now: now) else { continue }
                copies += 1
                let same = Self.contents(fd) == Array(buffer.readableBytesView)
                #expect(same, "round \(round): the file holds another body's bytes")
                if !same { return }
            }
        }
        #expect(copies >= 2 * 300, "every body got its copy on its second ask")
        #expect(files.count <= 8 && files.bytes <= 8 * Self.cost)
    }

    @Test func copiesStayWithinTheLimitAndACopySentLatelyStaysLongest() throws {
        final class Totals: @unchecked Sendable {
            var bytes = 0
            var copies = 0
        }
        let totals = Totals()
        let files = TileFiles(
            byteLimit: 3 * Self.cost + 1, now: 0,
            changed: {
                totals.bytes += $0
                totals.copies += $1
            })
        let bodies = (0..<5).map { Self.body(seed: 10 + $0) }
        var fds: [Int32?] = []
        for body in bodies.prefix(3) {
            _ = files.file(for: body, now: 0)
            fds.append(files.file(for: body, now: 0))
        }
        #expect(fds.allSatisfy { $0 != nil } && files.count == 3)
        _ = files.file(for: bodies[3], now: 0)
        #expect(files.file(for: bodies[3], now: 0) != nil && files.count == 3 && files.bytes <= 3 * Self.cost + 1)
        // Sent again since the hand cleared its mark: B stays when E needs room; C goes.
        #expect(files.file(for: bodies[1], now: 0) == fds[1])
        _ = files.file(for: bodies[4], now: 0)
        #expect(files.file(for: bodies[4], now: 0) != nil && files.count == 3)
        #expect(files.file(for: bodies[1], now: 0) == fds[1], "B kept")
        #expect(files.file(for: bodies[2], now: 0) == nil, "C evicted: asked once since, it has no copy")
        #expect(totals.bytes == files.bytes && totals.copies == files.count, "every change reported")
        files.removeAll()
        #expect(totals.bytes == 0 && totals.copies == 0)
    }

    @Test func copiesStayWithinTheirCount() throws {
        let files = TileFiles(byteLimit: 100 * Self.cost, copyLimit: 4, now: 0)
        for seed in 0..<10 {
            let body = Self.body(seed: 200 + seed)
            _ = files.file(for: body, now: 0)
            #expect(files.file(for: body, now: UInt64(seed + 1) * Self.second) != nil)
            #expect(files.count <= 4)
        }
        #expect(files.count == 4 && files.bytes == 4 * Self.cost)
    }

    @Test func copiesAreMadeAtABoundedRate() throws {
        let files = TileFiles(byteLimit: 100 * Self.cost, now: 0)
        let bodies = (0..<40).map { Self.body(seed: 100 + $0) }
        func askAll(at now: UInt64) {
            for body in bodies {
                _ = files.file(for: body, now: now)
                _ = files.file(for: body, now: now)
            }
        }
        askAll(at: 0)
        #expect(files.count == Int(TileFiles.copyBurst), "the burst only, in the same instant")
        askAll(at: Self.second / 10)
        #expect(files.count == Int(TileFiles.copyBurst + TileFiles.copiesPerSecond / 10), "a tenth of a second's worth more")
        askAll(at: Self.second)
        #expect(files.count == Int(2 * TileFiles.copyBurst + TileFiles.copiesPerSecond / 10), "no more than a burst however long the pause")
        askAll(at: 2 * Self.second)
        #expect(files.count == 40)
    }
}
