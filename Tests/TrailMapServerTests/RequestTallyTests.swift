import Foundation
import Testing
import TrailMapTestSupport
@testable import TrailMapServer

/// `RequestTally`: per-thread shards whose sum is exact under concurrency, rendered as Prometheus
/// histograms and counters by `/metrics`.
@Suite struct RequestTallyTests {
    @Test func theTotalsOfManyThreadsAreExact() async {
        let tally = RequestTally(bounds: [.microseconds(100), .milliseconds(1)])
        let threads = 8, each = 20_000
        // Each on its own thread, as event loops are.
        await onThreads(threads) { t in
            for i in 0..<each {
                let ns: Int64 = [50_000, 500_000, 5_000_000][(i + t) % 3]
                tally.record(route: i % 2 == 0 ? .tile : .api, status: i % 4 == 0 ? 304 : 200, bodyBytes: 10, nanoseconds: ns)
            }
        }
        let totals = tally.totals
        let tile = try? #require(totals.routes[.tile]), api = totals.routes[.api]
        #expect(tile?.count == threads * each / 2 && api?.count == threads * each / 2)
        #expect(tile?.statuses == [304: threads * each / 4, 200: threads * each / 4] && api?.statuses == [200: threads * each / 2])
        #expect(totals.bodyBytes == threads * each * 10)
        let all = (tile?.buckets ?? []).enumerated().map { $0.element + (api?.buckets[$0.offset] ?? 0) }
        #expect(
            all.count == 3 && all.allSatisfy { $0 == threads * each / 3 || $0 == threads * each / 3 + 1 || $0 == threads * each / 3 - 1 },
            "three latencies in turn: \(all)")
    }

    @Test func metricsShowCountsAndCumulativeBuckets() {
        let metrics = ServerMetrics()
        metrics.record(route: .tile, status: 200, bodyBytes: 100, duration: .microseconds(80))
        metrics.record(route: .tile, status: 200, bodyBytes: 50, duration: .microseconds(300))
        metrics.record(route: .tile, status: 304, bodyBytes: 0, duration: .seconds(2))
        var text = String(decoding: metrics.render(), as: UTF8.self)
        #expect(text.contains("trailmap_http_requests_total{route=\"tile\",status=\"200\"} 2"))
        #expect(text.contains("trailmap_http_requests_total{route=\"tile\",status=\"304\"} 1"))
        #expect(text.contains("trailmap_http_response_bytes_total 150") && text.contains("trailmap_tiles_served_total 2"))
        #expect(text.contains("trailmap_tiles_not_modified_total 1"))
        #expect(text.contains("trailmap_http_request_duration_seconds_bucket{route=\"tile\",le=\"0.0001\"} 1"))
        #expect(text.contains("trailmap_http_request_duration_seconds_bucket{route=\"tile\",le=\"0.0005\"} 2"))
        #expect(text.contains("trailmap_http_request_duration_seconds_bucket{route=\"tile\",le=\"1.0\"} 2"))
        #expect(text.contains("trailmap_http_request_duration_seconds_bucket{route=\"tile\",le=\"+Inf\"} 3"))
        #expect(text.contains("trailmap_http_request_duration_seconds_sum{route=\"tile\"} 2.00038"))
        #expect(text.contains("trailmap_http_request_duration_seconds_count{route=\"tile\"} 3"))
        #expect(text.components(separatedBy: "# TYPE trailmap_http_request_duration_seconds histogram").count == 2)
        // A second rendering adds only what happened since.
        metrics.record(route: .tile, status: 200, bodyBytes: 1, duration: .microseconds(1))
        text = String(decoding: metrics.render(), as: UTF8.self)
        #expect(
            text.contains("trailmap_http_requests_total{route=\"tile\",status=\"200\"} 3")
                && text.contains("trailmap_http_response_bytes_total 151"))
    }
}

@Suite struct DurationNanosecondsTests {
    @Test func wholeNanosecondsSaturating() {
        #expect(Duration.milliseconds(1500).nanoseconds == 1_500_000_000)
        #expect(Duration.nanoseconds(7).nanoseconds == 7)
        #expect(Duration.microseconds(-3).nanoseconds == -3000)
        #expect(Duration.seconds(Int64.max / 2).nanoseconds == .max)
        #expect(Duration.seconds(Int64.min / 2).nanoseconds == .min)
    }
}
