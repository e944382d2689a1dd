import Foundation

/// How often and how patiently to retry a request that failed on the network or with a 5xx.
public struct RetryPolicy: Sendable {
    /// Attempts in all, the first included (≥ 1).
    public var attempts: Int
    /// Delay before the second attempt; doubled for each further one.
    public var initialDelay: Duration
    /// Ceiling for one delay (also for a server's `Retry-After`).
    public var maxDelay: Duration

    public init(attempts: Int = 4, initialDelay: Duration = .milliseconds(500), maxDelay: Duration = .seconds(8)) {
        self.attempts = max(1, attempts)
        self.initialDelay = initialDelay
        self.maxDelay = maxDelay
    }

    /// Four attempts, 0.5 s, 1 s, 2 s apart.
    public static let standard = RetryPolicy()
    /// A single attempt.
    public static let none = RetryPolicy(attempts: 1)

    /// The delay after failed attempt `n` (1-based).
    func delay(after attempt: Int, retryAfter: Duration? = nil) -> Duration {
        if let retryAfter { return min(retryAfter, maxDelay) }
        var d = initialDelay
        for _ in 1..<max(1, attempt) { d = d * 2 }
        return min(d, maxDelay)
    }
}
