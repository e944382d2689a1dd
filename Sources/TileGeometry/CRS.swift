import Foundation

/// Coordinate reference systems a source image may be georeferenced in.
public enum CRS: String, Sendable, Codable, CaseIterable, CustomStringConvertible {
    /// Longitude/latitude in degrees (WGS 84).
    case epsg4326 = "EPSG:4326"
    /// Web Mercator metres.
    case epsg3857 = "EPSG:3857"

    /// Parses `EPSG:4326`, `4326`, `EPSG:3857`, `3857` (also `EPSG:900913`), case-insensitively.
    public init?(parsing text: String) {
        switch text.uppercased().replacingOccurrences(of: " ", with: "") {
        case "EPSG:4326", "4326", "WGS84", "CRS84", "OGC:CRS84": self = .epsg4326
        case "EPSG:3857", "3857", "EPSG:900913", "900913": self = .epsg3857
        default: return nil
        }
    }

    public var description: String { rawValue }
}
