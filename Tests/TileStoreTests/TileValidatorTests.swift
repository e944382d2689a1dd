import Foundation
import Testing
import TrailMapTestSupport
@testable import TileStore

/// `TileValidator`: XXH64 as the xxHash project's own Python binding computes it, on lengths that
/// take every path of the algorithm (stripes of 32, then 8, 4 and single bytes).
@Suite(.computeThreads) struct TileValidatorTests {
    @Test func matchesTheReferenceXXH64() throws {
        var rng = SplitMix64(seed: 11)
        let lengths = Array(0...80) + [255, 256, 257, 4096, 10_000, 115_001]
        let inputs = lengths.map { n in (0..<n).map { _ in UInt8.random(in: 0...255, using: &rng) } }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("xxh64-\(UUID().uuidString).txt")
        defer { try? FileManager.default.removeItem(at: file) }
        try inputs.map { $0.map { String(format: "%02x", $0) }.joined() }.joined(separator: "\n").write(
            to: file, atomically: true, encoding: .utf8)
        let p = ChildProcess()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        p.arguments = [
            "-c",
            "import sys, xxhash\nfor line in open(sys.argv[1]).read().split('\\n'):\n"
                + "    print('%016x' % xxhash.xxh64(bytes.fromhex(line)).intdigest())",
            file.path
        ]
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let errors = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        try #require(p.terminationStatus == 0, "python3 with xxhash (Debian python3-xxhash): \(errors)")
        let reference = text.split(separator: "\n").map(String.init)
        try #require(reference.count == inputs.count)
        for (input, expected) in zip(inputs, reference) {
            #expect(TileValidator.etag(input) == expected + "-" + String(input.count, radix: 16), "length \(input.count)")
        }
    }

    @Test func oneChangedByteChangesTheValidator() {
        var rng = SplitMix64(seed: 5)
        let tile = (0..<20_000).map { _ in UInt8.random(in: 0...255, using: &rng) }
        var seen = Set([TileValidator.etag(tile)])
        for i in stride(from: 0, to: tile.count, by: 997) {
            var changed = tile
            changed[i] ^= 1
            seen.insert(TileValidator.etag(changed))
        }
        #expect(seen.count == 1 + (tile.count + 996) / 997)
    }
}
