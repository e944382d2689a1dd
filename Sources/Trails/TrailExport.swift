import Foundation

/// A trail's geometry and fields as GeoJSON or GPX text (what `show --geojson/--gpx` writes).
public enum TrailExport {
    /// A GeoJSON Feature: a LineString (one part) or MultiLineString, with the trail's fields as properties.
    public static func geoJSON(_ t: TrailRecord) -> String {
        func coords(_ part: [LonLat]) -> String { "[" + part.map { "[\(num($0.lon)),\(num($0.lat))]" }.joined(separator: ",") + "]" }
        let geometry =
            t.geometry.parts.count == 1
            ? "{\"type\":\"LineString\",\"coordinates\":\(coords(t.geometry.parts[0]))}"
            : "{\"type\":\"MultiLineString\",\"coordinates\":[" + t.geometry.parts.map(coords).joined(separator: ",") + "]}"
        var props = [
            "\"id\":\(json(t.id.description))", "\"difficulty\":\(json(t.difficulty.rawValue))",
            "\"allowedUses\":[" + t.allowedUses.uses.map { json($0.rawValue) }.joined(separator: ",") + "]",
            "\"forbiddenUses\":[" + t.forbiddenUses.uses.map { json($0.rawValue) }.joined(separator: ",") + "]",
            "\"lengthMetres\":\(String(format: "%.1f", t.lengthMetres))"
        ]
        if let name = t.name { props.append("\"name\":\(json(name))") }
        if let ref = t.ref { props.append("\"ref\":\(json(ref))") }
        if let surface = t.surface { props.append("\"surface\":\(json(surface))") }
        return "{\"type\":\"Feature\",\"properties\":{\(props.joined(separator: ","))},\"geometry\":\(geometry)}\n"
    }

    /// A GPX 1.1 document with one track of one segment a part.
    public static func gpx(_ t: TrailRecord) -> String {
        var out = """
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx version="1.1" creator="TrailMap" xmlns="http://www.topografix.com/GPX/1/1">
              <trk>

            """
        if let name = t.name { out += "    <name>\(xml(name))</name>\n" }
        out += "    <desc>\(xml("trail \(t.id), \(t.difficulty.rawValue)"))</desc>\n"
        for part in t.geometry.parts {
            out += "    <trkseg>\n"
            for p in part { out += "      <trkpt lat=\"\(num(p.lat))\" lon=\"\(num(p.lon))\"/>\n" }
            out += "    </trkseg>\n"
        }
        out += "  </trk>\n</gpx>\n"
        return out
    }

    static func num(_ v: Double) -> String { String(format: "%.6f", v) }

    static func json(_ s: String) -> String {
        let data = (try? JSONSerialization.data(withJSONObject: [s], options: [.fragmentsAllowed])) ?? Data("[\"\"]".utf8)
        return String(String(decoding: data, as: UTF8.self).dropFirst().dropLast())
    }

    static func xml(_ s: String) -> String {
        s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
