/// How a profile is sampled and how much input it takes.
public struct ProfileOptions: Sendable, Equatable {
    /// The spacing used when none is asked for, in metres.
    public static let defaultSpacing = 10.0

    /// Metres between samples; nil: `defaultSpacing`.
    public var spacing: Double?
    /// The most points a line may have; more are refused before any is read.
    public var maxPoints: Int
    /// The most samples a profile holds; a longer line gets a wider spacing.
    public var maxSamples: Int

    public init(spacing: Double? = nil, maxPoints: Int = 100_000, maxSamples: Int = 10_000) {
        self.spacing = spacing
        self.maxPoints = maxPoints
        self.maxSamples = max(2, maxSamples)
    }
}
