/// How a hillshade is lit, as `gdaldem hillshade`'s options.
public struct HillshadeOptions: Sendable, Hashable, Codable {
    /// Which of gdaldem's hillshades.
    public enum Mode: String, Sendable, Hashable, Codable, CaseIterable {
        /// One light from `azimuth` (gdaldem's default).
        case single
        /// Lights from 225°, 270°, 315° and 360° weighted by the aspect (`-multidirectional`).
        case multidirectional
        /// The single light's shade darkened by the slope (`-combined`).
        case combined
    }

    /// The light's direction in degrees clockwise from north (gdaldem's `-az`).
    public var azimuth: Double = 315
    /// The light's height above the horizon in degrees (gdaldem's `-alt`).
    public var altitude: Double = 45
    /// Vertical exaggeration (gdaldem's `-z`).
    public var zFactor: Double = 1
    public var mode: Mode = .single

    public init(azimuth: Double = 315, altitude: Double = 45, zFactor: Double = 1, mode: Mode = .single) {
        self.azimuth = azimuth
        self.altitude = altitude
        self.zFactor = zFactor
        self.mode = mode
    }

    /// What is wrong with the options, or nil: azimuth 0–360, altitude 0–90, z-factor above 0.
    public var problem: HillshadeOptionProblem? {
        if !(azimuth.isFinite && (0...360).contains(azimuth)) { return .azimuth(azimuth) }
        if !(altitude.isFinite && (0...90).contains(altitude)) { return .altitude(altitude) }
        if !(zFactor.isFinite && zFactor > 0) { return .zFactor(zFactor) }
        return nil
    }
}

/// A hillshade option out of its range (the value given).
public enum HillshadeOptionProblem: Error, Sendable, Equatable, CustomStringConvertible {
    case azimuth(Double)
    case altitude(Double)
    case zFactor(Double)

    public var description: String {
        switch self {
        case let .azimuth(v): "azimuth \(v) must be from 0 to 360 degrees"
        case let .altitude(v): "altitude \(v) must be from 0 to 90 degrees"
        case let .zFactor(v): "z-factor \(v) must be more than 0"
        }
    }
}
