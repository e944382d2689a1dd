import Foundation
import TileGeometry

/// The `metadata` table of an MBTiles 1.3 bundle, with TrailMap's `trailmap:` keys.
public struct BundleMetadata: Sendable, Equatable {
    public var name: String
    public var format: String = "png"
    public var bounds: GeoBounds
    public var center: (lon: Double, lat: Double, zoom: Int)
    public var minZoom: Int
    public var maxZoom: Int
    public var type: String = "baselayer"
    public var version: String = "1.0.0"
    public var description: String = ""
    public var attribution: String = ""
    /// Any other keys, e.g. `trailmap:region`, `trailmap:builder`, `trailmap:sources`.
    public var extra: [String: String] = [:]

    public init(name: String, bounds: GeoBounds, minZoom: Int, maxZoom: Int) {
        self.name = name
        self.bounds = bounds
        self.minZoom = minZoom
        self.maxZoom = maxZoom
        let c = bounds.center
        self.center = (c.lon, c.lat, minZoom)
    }

    public static func == (a: BundleMetadata, b: BundleMetadata) -> Bool {
        a.pairs == b.pairs
    }

    /// The rows to store, name → value.
    public var pairs: [String: String] {
        var p = extra
        p["name"] = name
        p["format"] = format
        p["bounds"] = bounds.description
        p["center"] = String(format: "%.6f,%.6f,%d", center.lon, center.lat, center.zoom)
        p["minzoom"] = String(minZoom)
        p["maxzoom"] = String(maxZoom)
        p["type"] = type
        p["version"] = version
        p["description"] = description
        p["attribution"] = attribution
        return p
    }

    /// The keys every TrailMap bundle carries.
    public static let requiredKeys = [
        "name", "format", "bounds", "center", "minzoom", "maxzoom",
        "type", "version", "description", "attribution"
    ]

    /// Reads metadata rows; fills what is missing from defaults and lists what is wrong in `problems`.
    public init(pairs: [String: String], problems: inout [String]) {
        let bounds = pairs["bounds"].flatMap(GeoBounds.init(parsing:))
        if pairs["bounds"] != nil, bounds == nil { problems.append("metadata bounds \"\(pairs["bounds"]!)\" is not W,S,E,N") }
        let minZ = pairs["minzoom"].flatMap { Int($0) }
        let maxZ = pairs["maxzoom"].flatMap { Int($0) }
        if let s = pairs["minzoom"], minZ == nil { problems.append("metadata minzoom \"\(s)\" is not an integer") }
        if let s = pairs["maxzoom"], maxZ == nil { problems.append("metadata maxzoom \"\(s)\" is not an integer") }
        self.init(name: pairs["name"] ?? "", bounds: bounds ?? .world, minZoom: minZ ?? 0, maxZoom: maxZ ?? 0)
        if let f = pairs["format"] { format = f }
        if let t = pairs["type"] { type = t }
        if let v = pairs["version"] { version = v }
        if let d = pairs["description"] { description = d }
        if let a = pairs["attribution"] { attribution = a }
        if let c = pairs["center"] {
            let parts = c.split(separator: ",").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
            if parts.count == 3 {
                center = (parts[0], parts[1], Int(parts[2]))
            } else {
                problems.append("metadata center \"\(c)\" is not lon,lat,zoom")
            }
        }
        let known = Set(BundleMetadata.requiredKeys)
        extra = pairs.filter { !known.contains($0.key) }
    }
}
