/// The fixed difficulty ladder every trail is placed on, whatever its source's own scale.
public enum TrailDifficulty: String, Sendable, Codable, CaseIterable, Comparable {
    case easy, moderate, hard, expert, unknown

    /// Position on the ladder (easy 0 ... expert 3, unknown 4).
    public var rank: Int { Self.allCases.firstIndex(of: self) ?? 4 }

    public static func < (a: TrailDifficulty, b: TrailDifficulty) -> Bool { a.rank < b.rank }
}
