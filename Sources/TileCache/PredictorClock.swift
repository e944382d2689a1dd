import Synchronization

/// Milliseconds that move only when told to, for the prefetch predictor in place of the
/// monotonic clock (`CacheConfiguration.predictorClock`): a viewer's steps and silences are then
/// exactly as long as their caller says, however slowly its requests are served.
public final class PredictorClock: Sendable, Equatable {
    private let now: Atomic<UInt64>

    /// A clock reading `milliseconds` until advanced.
    public init(startingAt milliseconds: UInt64 = 1_000_000) { now = Atomic(milliseconds) }

    /// The time, in milliseconds.
    public var milliseconds: UInt64 { now.load(ordering: .relaxed) }

    /// Moves the clock on by `milliseconds`.
    public func advance(by milliseconds: UInt64) { now.add(milliseconds, ordering: .relaxed) }

    /// Two clocks are equal when they are the same clock.
    public static func == (a: PredictorClock, b: PredictorClock) -> Bool { a === b }
}
