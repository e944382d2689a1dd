/// A way of travelling a trail.
public enum TrailUse: String, Sendable, Codable, CaseIterable {
    case foot
    case bicycle
    case horse
    case motorVehicle = "motor_vehicle"
    case ski

    /// The use's bit in `TrailUses` (and in the `allowed_uses` / `forbidden_uses` columns).
    public var bit: Int { 1 << (Self.allCases.firstIndex(of: self) ?? 0) }
}

/// A set of uses, stored as a bit mask: foot 1, bicycle 2, horse 4, motor_vehicle 8, ski 16.
public struct TrailUses: OptionSet, Sendable, Hashable, Codable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    public init(_ uses: some Sequence<TrailUse>) {
        self.init(rawValue: uses.reduce(0) { $0 | $1.bit })
    }

    public static func of(_ use: TrailUse) -> TrailUses { TrailUses(rawValue: use.bit) }

    /// The uses in the set, in `TrailUse.allCases` order.
    public var uses: [TrailUse] { TrailUse.allCases.filter { rawValue & $0.bit != 0 } }

    /// Every bit a use has.
    public static let all = TrailUses(TrailUse.allCases)

    public init(from decoder: any Decoder) throws {
        self.init(try [TrailUse](from: decoder))
    }

    public func encode(to encoder: any Encoder) throws {
        try uses.encode(to: encoder)
    }
}

/// What a source says about one use of a trail.
public enum UseAccess: String, Sendable, Codable {
    case allowed, forbidden
}
