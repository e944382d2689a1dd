import Foundation
import Testing
@testable import BundleBuilder
import TrailMapTestSupport

/// A PNG source too wide to decode within `--memory-limit` is refused before its rows are
/// allocated, with a message saying what to do.
@Suite(.computeThreads) struct PNGSourceLimitTests {
    @Test func aPNGTooWideForTheMemoryLimitIsRefused() throws {
        let dir = TemporaryDirectory()
        // 2,200,000 gray pixels a row: 35.2 MB of RGBA for the four rows decoding keeps, more than
        // half of 64 MB.
        let width = 2_200_000
        let png = PNGBytes.make(
            width: width, height: 2, bitDepth: 8, colorType: 0,
            rows: [[UInt8]](repeating: [UInt8](repeating: 90, count: width), count: 2))
        let path = dir.file("wide.png")
        try Data(png).write(to: URL(fileURLWithPath: path))
        try "0.00001\n0\n0\n-0.00001\n10\n50\n".write(toFile: dir.file("wide.pgw"), atomically: true, encoding: .utf8)
        var o = BuildOptions(sources: [path], name: "Wide", minZoom: 5, maxZoom: 6, output: dir.file("wide.mbtiles"))
        o.memoryLimit = 64 << 20
        #expect { try BundleBuilder(options: o).build() } throws: { error in
            guard case let .pngRowsTooWide(p, w, _, limit)? = error as? BuildError else { return false }
            return p == path && w == width && limit == 64 << 20 && "\(error)".contains("memory limit")
                && "\(error)".contains("2200000 pixels wide")
        }
        #expect(!dir.contents.contains("wide.mbtiles"))
    }
}
