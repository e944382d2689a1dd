import Foundation
import TrailRendering

/// Reads LineString and MultiLineString features of a GeoJSON file (EPSG:4326) as trail lines;
/// properties `id`, `name` and `difficulty` when present. A bench tool's reader, not the product's.
enum GeoJSONLines {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    static func read(_ path: String) throws -> [TrailLine] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        guard let root = try JSONSerialization.jsonObject(with: data) as? [String: Any],
            let features = root["features"] as? [[String: Any]]
        else {
            throw Failure(description: "\(path): not a GeoJSON FeatureCollection")
        }
        var lines = [TrailLine]()
        for (i, f) in features.enumerated() {
            let props = f["properties"] as? [String: Any] ?? [:]
            let id = (props["id"] as? String) ?? (props["id"] as? NSNumber)?.stringValue ?? "f\(i)"
            let name = props["name"] as? String
            let difficulty = (props["difficulty"] as? String).flatMap(TrailDifficultyStyleKey.init(rawValue:)) ?? .unknown
            guard let g = f["geometry"] as? [String: Any], let type = g["type"] as? String else { continue }
            let parts: [[[Double]]]
            switch type {
            case "LineString": parts = [(g["coordinates"] as? [[Double]]) ?? []]
            case "MultiLineString": parts = (g["coordinates"] as? [[[Double]]]) ?? []
            default: continue
            }
            for (k, part) in parts.enumerated() {
                var flat = [Double]()
                flat.reserveCapacity(part.count * 2)
                for p in part where p.count >= 2 { flat.append(p[0]); flat.append(p[1]) }
                lines.append(TrailLine(id: parts.count > 1 ? "\(id)#\(k)" : id, name: name, difficulty: difficulty, coordinates: flat))
            }
        }
        return lines
    }
}
