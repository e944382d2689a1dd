import Foundation
import Testing
import TileGeometry
@testable import Raster
import TrailMapTestSupport

/// A window halved many times (a source without overviews at a zoom far coarser than its pixels)
/// is read in chunks so that memory stays bounded: the result is the one-piece read's, bit for bit.
@Suite(.computeThreads) struct WindowPlanTests {
    let dir = TrailMapTestSupport.TemporaryDirectory()

    @Test func chunkedReadsEqualTheWholeWindowsRead() throws {
        // 301 × 203: odd sizes, so chunks at the right and bottom edges are partial blocks; a
        // transparent stripe and noise so that alpha weighting and rounding both matter.
        let png = try TestSources.write(
            in: dir, name: "noise", width: 301, height: 203,
            bounds: GeoBounds(west: 0, south: 0, east: 3, north: 2)
        ) { c, r in
            let v = (c &* 7919 &+ r &* 104_729 &+ c &* r) % 251
            return (UInt8(v), UInt8((v * 3) % 256), UInt8(255 - v), c % 37 < 5 ? 0 : UInt8(128 + v / 2))
        }
        let pyramid = try SourcePyramid(reader: try PNGRowReader(path: png), memoryBudget: 1 << 30, spillDirectory: dir.path)
        // Only the full-resolution level, as for a file without overviews.
        for factor in [2.0, 8, 32] {
            let plan = WindowPlan(levels: [pyramid.levels[0]], factor: factor)
            #expect(plan.level == 0 && 1 << plan.halvings == Int(factor))
            for (x0, y0, x1, y1) in [(0, 0, plan.width, plan.height), (1, 2, plan.width - 1, plan.height)] {
                var whole = [UInt8](), chunked = [UInt8](), twoStage = [UInt8]()
                try plan.read(from: pyramid, x0: x0, y0: y0, x1: x1, y1: y1, into: &whole)
                // Chunks of 40 × 40 pixels (so 5 × 5, 1 × 1 blocks: partial ones at the edges)...
                try plan.read(from: pyramid, x0: x0, y0: y0, x1: x1, y1: y1, into: &chunked, chunkPixels: 1_600)
                // ...and halved once chunk by chunk, the rest over the intermediate image.
                try plan.read(from: pyramid, x0: x0, y0: y0, x1: x1, y1: y1, into: &twoStage, chunkPixels: 1_024, chunkHalvings: 1)
                let n = (x1 - x0) * (y1 - y0) * 4
                #expect(whole.count >= n && chunked.count >= n && twoStage.count >= n)
                #expect(Array(chunked.prefix(n)) == Array(whole.prefix(n)), "factor \(factor), window \(x0),\(y0)-\(x1),\(y1)")
                #expect(Array(twoStage.prefix(n)) == Array(whole.prefix(n)), "factor \(factor), window \(x0),\(y0)-\(x1),\(y1)")
            }
        }
    }

    @Test func aWindowTooLargeToReduceIsAClearError() throws {
        let png = try TestSources.write(
            in: dir, name: "small", width: 64, height: 64,
            bounds: GeoBounds(west: 0, south: 0, east: 1, north: 1)
        ) { _, _ in (1, 2, 3, 255) }
        let pyramid = try SourcePyramid(reader: try PNGRowReader(path: png), memoryBudget: 1 << 30, spillDirectory: dir.path)
        let plan = WindowPlan(levels: [pyramid.levels[0]], factor: 4)
        var out = [UInt8]()
        // With chunks of 4 pixels, 64 × 64 halved once chunk by chunk leaves an intermediate
        // 32 × 32, over 16 chunks' worth, to halve once more.
        #expect(throws: WindowReadError.self) {
            try plan.read(from: pyramid, x0: 0, y0: 0, x1: 16, y1: 16, into: &out, chunkPixels: 4, chunkHalvings: 1)
        }
        // Halved no more than chunk by chunk, there is no intermediate image: it is read.
        let once = WindowPlan(levels: [pyramid.levels[0]], factor: 2)
        try once.read(from: pyramid, x0: 0, y0: 0, x1: 32, y1: 32, into: &out, chunkPixels: 4, chunkHalvings: 1)
        #expect(Array(out.prefix(8)) == [1, 2, 3, 255, 1, 2, 3, 255])
    }
}
