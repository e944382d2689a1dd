import Foundation
import Raster
import TileGeometry
import TileStore

/// TileJSON 3.0.0 documents and the tileset list.
enum TileJSON {
    /// The TileJSON of a tileset; `base` is the server's origin, e.g. `http://127.0.0.1:8080`.
    static func document(_ t: Tileset, base: String) -> [String: Any] {
        let m = t.metadata
        var doc: [String: Any] = [
            "tilejson": "3.0.0",
            "name": m.name,
            "tiles": ["\(base)/tiles/\(t.id)/{z}/{x}/{y}.\(t.format.fileExtension)"],
            "minzoom": m.minZoom,
            "maxzoom": m.maxZoom,
            "bounds": [m.bounds.west, m.bounds.south, m.bounds.east, m.bounds.north],
            "center": [m.center.lon, m.center.lat, Double(m.center.zoom)],
            "scheme": "xyz",
            "version": m.version.isEmpty ? "1.0.0" : m.version,
            "format": t.format.rawValue,
        ]
        if !m.attribution.isEmpty { doc["attribution"] = m.attribution }
        if !m.description.isEmpty { doc["description"] = m.description }
        doc["tileSize"] = t.tileSize
        return doc
    }

    /// One entry of `GET /tiles`.
    static func summary(_ t: Tileset, base: String) -> [String: Any] {
        var entry: [String: Any] = ["id": t.id, "tilejson": "\(base)/tiles/\(t.id).json"]
        if let failure = t.failure {
            entry["status"] = "unavailable"
            entry["error"] = failure
        } else {
            let m = t.metadata
            entry["status"] = "ok"
            entry["name"] = m.name
            entry["minzoom"] = m.minZoom
            entry["maxzoom"] = m.maxZoom
            entry["bounds"] = [m.bounds.west, m.bounds.south, m.bounds.east, m.bounds.north]
            entry["format"] = t.format.rawValue
            entry["tileSize"] = t.tileSize
        }
        return entry
    }
}
