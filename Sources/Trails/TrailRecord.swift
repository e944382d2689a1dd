import Crypto
import Foundation

/// A trail's id: stable across rebuilds of the same source. It is the first 63 bits of
/// SHA-256("trailmap-trail-1\n" + identity), where the identity is, in order of preference, the
/// mapping's id field (`field:FIELD:VALUE`, or `NAMESPACE:VALUE` with the mapping's
/// `idNamespace`: OpenStreetMap ways are `osm:way:ID`), else the trail's name, ref and geometry
/// in microdegrees (`geom:NAME|REF|lon,lat;...`). A joined trail's identity is
/// `join:` + its members' ids, sorted. Shown as 16 hexadecimal digits.
public struct TrailID: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    /// The id as stored (the `id` column of `trails`, also its rowid); always positive.
    public let value: Int64

    public init(value: Int64) { self.value = value }

    /// The id of a source identity.
    public init(identity: String) {
        let digest = SHA256.hash(data: Data("trailmap-trail-1\n\(identity)".utf8))
        var v: UInt64 = 0
        for byte in digest.prefix(8) { v = v << 8 | UInt64(byte) }
        value = Int64(bitPattern: v & 0x7fff_ffff_ffff_ffff)
    }

    /// Parses 16 hexadecimal digits (as `description` writes them).
    public init?(_ text: String) {
        guard text.count == 16, let v = UInt64(text, radix: 16), v <= UInt64(Int64.max) else { return nil }
        value = Int64(v)
    }

    public var description: String {
        let hex = String(UInt64(value), radix: 16)
        return String(repeating: "0", count: max(0, 16 - hex.count)) + hex
    }

    public static func < (a: TrailID, b: TrailID) -> Bool { a.value < b.value }

    public init(from decoder: any Decoder) throws {
        let text = try String(from: decoder)
        guard let id = TrailID(text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not a trail id: \(text)"))
        }
        self = id
    }

    public func encode(to encoder: any Encoder) throws { try description.encode(to: encoder) }
}

/// One trail as stored in a bundle.
public struct TrailRecord: Sendable, Hashable {
    public var id: TrailID
    public var name: String?
    public var ref: String?
    public var difficulty: TrailDifficulty
    public var allowedUses: TrailUses
    public var forbiddenUses: TrailUses
    public var surface: String?
    /// Geodesic length on WGS 84, metres.
    public var lengthMetres: Double
    public var geometry: TrailGeometry
    /// Where it came from, e.g. `osm:way:123` or `trails.gpkg:trails:17` (informative only).
    public var source: String

    public init(
        id: TrailID, name: String?, ref: String?, difficulty: TrailDifficulty, allowedUses: TrailUses,
        forbiddenUses: TrailUses, surface: String?, geometry: TrailGeometry, source: String
    ) {
        self.id = id
        self.name = name
        self.ref = ref
        self.difficulty = difficulty
        self.allowedUses = allowedUses
        self.forbiddenUses = forbiddenUses
        self.surface = surface
        self.geometry = geometry
        self.lengthMetres = geometry.lengthMetres
        self.source = source
    }

    public var bounds: TrailBox { geometry.bounds ?? TrailBox(west: 0, south: 0, east: 0, north: 0) }
    public var start: LonLat { geometry.start ?? LonLat(lon: 0, lat: 0) }
    public var end: LonLat { geometry.end ?? LonLat(lon: 0, lat: 0) }
}
