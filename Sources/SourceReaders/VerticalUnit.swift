import Foundation

/// The unit of a DEM's elevations, converted to metres as they are read.
public enum VerticalUnit: String, Sendable, Hashable, CaseIterable, Codable {
    case metre
    /// The international foot (0.3048 m).
    case foot
    /// The US survey foot (1200/3937 m).
    case usSurveyFoot = "us-foot"

    /// Metres in one unit.
    public var metres: Double {
        switch self {
        case .metre: 1
        case .foot: 0.3048
        case .usSurveyFoot: 1200.0 / 3937.0
        }
    }

    /// The unit a raster band's unit type names (GDAL's `GetUnitType`, as GeoTIFF, VRT and
    /// `gdal_edit -units` write it); an empty name is metres, as DEMs without one are. Nil for a
    /// name that is not a length this reader knows.
    public init?(gdalName: String) {
        switch gdalName.trimmingCharacters(in: .whitespaces).lowercased() {
        case "", "m", "metre", "meter", "metres", "meters": self = .metre
        case "ft", "foot", "feet", "international foot", "international feet", "foot_international": self = .foot
        case "us-ft", "ftus", "us survey foot", "us survey feet", "foot_us", "us_survey_foot", "us-foot": self = .usSurveyFoot
        default: return nil
        }
    }
}
