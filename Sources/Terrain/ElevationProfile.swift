/// One sample of a profile.
public struct ProfileSample: Sendable, Equatable {
    /// Metres along the line from its start.
    public var distance: Double
    public var point: GeoPoint
    /// Metres; nil for a void or a point outside the terrain.
    public var elevation: Double?
    /// Percent from the previous sample (rise over run); nil for the first sample and where
    /// either elevation is missing.
    public var grade: Double?
}

/// A sample singled out (the lowest, the highest).
public struct ProfilePoint: Sendable, Equatable {
    public var distance: Double
    public var elevation: Double
    public var point: GeoPoint
}

/// A line's elevation profile: its samples at a fixed spacing and the totals over them.
public struct ElevationProfile: Sendable, Equatable {
    /// The line's length in metres.
    public var length: Double
    /// The spacing actually used, in metres (the one asked for, widened when the line would
    /// otherwise need more samples than allowed).
    public var spacing: Double
    /// Metres climbed and descended: the sum of rises and of falls between consecutive samples
    /// that have elevations (across voids too).
    public var ascent: Double
    public var descent: Double
    /// The steepest uphill grade (largest) and downhill grade (smallest), percent; nil when no
    /// two adjacent samples have elevations.
    public var maxGrade: Double?
    public var minGrade: Double?
    public var lowest: ProfilePoint
    public var highest: ProfilePoint
    public var samples: [ProfileSample]
}
