/// How short of memory the process is.
public enum MemoryPressureLevel: String, Sendable, CaseIterable, Comparable {
    case normal
    case warning
    case critical

    private var rank: Int {
        switch self {
        case .normal: 0
        case .warning: 1
        case .critical: 2
        }
    }

    public static func < (a: Self, b: Self) -> Bool { a.rank < b.rank }

    /// 0, 1, 2 (for metrics).
    public var value: Int { rank }
}
