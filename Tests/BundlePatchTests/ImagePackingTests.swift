@testable import BundlePatch
import Testing
import TrailMapTestSupport

@Suite(.computeThreads) struct ImagePackingTests {
    /// Every item lands in one bin, no bin overflows, and next fit over the bins in order (what
    /// VACUUM does) uses no more pages than there are bins, and fewer than over the items as given.
    @Test func packedOrderNeedsNoMorePagesThanBins() {
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> Int {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(seed >> 33)
        }
        let capacity = 4088
        let sizes = (0..<2000).map { _ in 300 + next() % 1800 }
        let bins = ImagePacking.bestFitDecreasing(sizes, capacity: capacity)
        #expect(bins.flatMap { $0 }.sorted() == Array(sizes.indices))
        #expect(bins.allSatisfy { $0.reduce(0) { $0 + sizes[$1] } <= capacity })
        func nextFit(_ order: [Int]) -> Int {
            var pages = 0, room = 0
            for i in order {
                if sizes[i] > room { pages += 1; room = capacity }
                room -= sizes[i]
            }
            return pages
        }
        #expect(nextFit(bins.flatMap { $0 }) <= bins.count)
        #expect(bins.count < nextFit(Array(sizes.indices)), "\(bins.count) bins, \(nextFit(Array(sizes.indices))) pages as given")
        // Best fit decreasing's bound: at most 11/9 of the fewest bins possible, plus one.
        let fewest = (sizes.reduce(0, +) + capacity - 1) / capacity
        #expect(bins.count <= 11 * fewest / 9 + 1, "\(bins.count) bins, at least \(fewest)")
    }

    /// Cells as SQLite lays them out: small rows whole on the page, big ones spilling to overflow.
    @Test func cellSizesFollowSQLitesLayout() {
        // 32-byte id, 100-byte blob: record header 4 (its size, 77, 212 as a 2-byte varint), payload
        // 136; the cell: payload size (a 2-byte varint), payload, and a 2-byte cell pointer.
        #expect(ImagePacking.cellSize(id: 32, data: 100, pageSize: 4096) == 2 + 136 + 2)
        // A 10,000-byte blob spills: what stays is at most the local limit, plus a 4-byte overflow pointer.
        let big = ImagePacking.cellSize(id: 32, data: 10_000, pageSize: 4096)
        #expect(big < 4096 - 35 + 4 + 2 + 3 && big > 400, "\(big)")
        #expect(ImagePacking.varintLength(127) == 1 && ImagePacking.varintLength(128) == 2 && ImagePacking.varintLength(1 << 14) == 3)
    }
}
