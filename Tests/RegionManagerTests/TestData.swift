import Foundation
import RegionManager

/// Helpers shared by the suites.
enum TestData {
    /// Deterministic pseudo-random bytes.
    static func bytes(_ count: Int, seed: UInt64 = 42) -> Data {
        var state = seed
        var data = Data(count: count)
        for i in 0..<count {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            data[i] = UInt8(truncatingIfNeeded: state >> 33)
        }
        return data
    }

    /// Fast retries for tests.
    static func http(attempts: Int = 1) -> RetryingHTTPClient {
        RetryingHTTPClient(
            retry: RetryPolicy(attempts: attempts, initialDelay: .milliseconds(10), maxDelay: .milliseconds(50)), timeout: 10)
    }

    static func job(_ server: TestHTTPServer, _ route: BundleRoute, dir: String, id: String = "com.test.region") -> Downloader.Job {
        Downloader.Job(
            url: server.url.appendingPathComponent("api/v1/downloads/\(id)"), token: "t", productId: id,
            sha256: route.sha256, size: route.size, partial: PartialDownload(productId: id, directory: dir))
    }
}
