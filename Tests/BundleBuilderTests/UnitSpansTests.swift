import Foundation
import Testing
import TrailMapTestSupport
@testable import BundleBuilder

/// How rendering threads share a band's units: each works its own stretch of the Morton order,
/// then helps the others from the back; every unit is rendered exactly once.
@Suite(.computeThreads) struct UnitSpansTests {
    @Test func eachThreadStartsOnItsOwnStretchThenHelps() throws {
        let spans = UnitSpans(count: 100, threads: 2)
        #expect(spans.run == 6)
        #expect(spans.take(thread: 0) == 0..<6)
        #expect(spans.take(thread: 1) == 50..<56, "the second thread starts half-way")
        // Thread 0 works through its half; then it takes from the back of thread 1's.
        var taken = [0..<6]
        while let r = spans.take(thread: 0), r.lowerBound < 50 { taken.append(r) }
        #expect(taken.last?.upperBound == 50 && taken.count == 9, "\(taken)")
        let helped = try #require(spans.take(thread: 0))
        #expect(helped.upperBound < 100 && helped.count == 6, "a run from the back of the busier stretch: \(helped)")
    }

    @Test func everyUnitIsHandedOutOnceUnderContention() async {
        for (count, threads) in [(0, 2), (1, 4), (7, 3), (1000, 2), (999, 8)] {
            let spans = UnitSpans(count: count, threads: threads)
            let seen = await withTaskGroup(of: [Int].self) { group in
                for t in 0..<threads {
                    group.addTask {
                        var mine = [Int]()
                        while let r = spans.take(thread: t) {
                            #expect(!r.isEmpty && r.count <= spans.run)
                            mine += Array(r)
                        }
                        return mine
                    }
                }
                var all = [Int]()
                for await part in group { all += part }
                return all
            }
            #expect(seen.sorted() == Array(0..<count), "\(count) units, \(threads) threads")
        }
    }
}
