/// Which elevations a tile's contour lines are drawn at: every multiple of `interval` metres,
/// and every `indexEvery`-th of them (the multiples of `interval × indexEvery`) an index contour.
public struct ContourLevels: Sendable, Hashable, Codable {
    /// The spacing of the levels in metres (more than 0).
    public var interval: Double
    /// Every this many levels an index contour (drawn heavier); 0 for none.
    public var indexEvery: Int

    /// The most levels one tile may cross: a finer interval would draw the tile solid.
    public static let maxLevelsPerTile = 2000

    public init(interval: Double, indexEvery: Int = 5) {
        self.interval = interval
        self.indexEvery = indexEvery
    }

    /// What is wrong with the levels, or nil: an interval that is not a number above 0, a
    /// negative `indexEvery`.
    public var problem: ContourError? {
        if !(interval.isFinite && interval > 0) { return .interval(interval) }
        if indexEvery < 0 { return .indexEvery(indexEvery) }
        return nil
    }

    /// The level numbers `k` (level `k × interval`) from `low` to `high` metres, both included.
    public func steps(from low: Double, to high: Double) -> ClosedRange<Int>? {
        let first = (low / interval).rounded(.up), last = (high / interval).rounded(.down)
        guard first <= last, first.magnitude < 1e15, last.magnitude < 1e15 else { return nil }
        return Int(first)...Int(last)
    }

    /// How many levels lie from `low` to `high` metres (as a `Double`: it may be huge).
    public func count(from low: Double, to high: Double) -> Double {
        max(0, (high / interval).rounded(.down) - (low / interval).rounded(.up) + 1)
    }

    /// The elevation of level number `k`.
    public func elevation(_ k: Int) -> Double { Double(k) * interval }

    /// Whether level number `k` is an index contour.
    public func isIndex(_ k: Int) -> Bool { indexEvery > 0 && k % indexEvery == 0 }
}

/// Why contour lines cannot be made (the values given).
public enum ContourError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The interval is not a number above 0.
    case interval(Double)
    /// Index contours every a negative number of levels.
    case indexEvery(Int)
    /// The elevations of one tile cross more levels than `ContourLevels.maxLevelsPerTile`.
    case tooManyLevels(count: Int, limit: Int, interval: Double)

    public var description: String {
        switch self {
        case let .interval(v): "the contour interval \(v) must be a number of metres above 0"
        case let .indexEvery(n): "index contours every \(n) levels: the count must be 0 (none) or more"
        case let .tooManyLevels(count, limit, interval):
            """
            a contour interval of \(interval) m crosses \(count) levels in one tile (at most \(limit)): choose a wider interval for \
            this zoom
            """
        }
    }
}
