import Trails

/// The built-in mapping of OpenStreetMap ways as GDAL's OSM driver reads them (the `lines` layer:
/// `osm_id`, `name`, `highway` columns, other tags in the `other_tags` hstore).
extension TrailFieldMapping {
    /// Paths, footways, tracks, bridleways, cycleways and steps; `sac_scale`, then `mtb:scale`,
    /// give the difficulty; `foot`, `bicycle`, `horse`, `motor_vehicle`, `ski` the uses
    /// (yes / designated / permissive / official: allowed; no / private: forbidden), with footway,
    /// bridleway, cycleway and steps implying their use; `surface`, `name`, `ref`.
    public static let osm = TrailFieldMapping(
        id: "osm_id", idNamespace: "osm:way", name: "name", ref: "ref", surface: "surface",
        difficulty: ["sac_scale", "mtb:scale"],
        difficultyValues: [
            "sac_scale": [
                "hiking": .easy, "mountain_hiking": .moderate,
                "demanding_mountain_hiking": .hard, "alpine_hiking": .hard,
                "demanding_alpine_hiking": .expert, "difficult_alpine_hiking": .expert
            ],
            "mtb:scale": [
                "0-": .easy, "0": .easy, "0+": .easy, "1-": .easy, "1": .easy, "1+": .easy,
                "2-": .moderate, "2": .moderate, "2+": .moderate,
                "3-": .hard, "3": .hard, "3+": .hard,
                "4-": .expert, "4": .expert, "4+": .expert, "5": .expert, "6": .expert
            ]
        ],
        uses: ["foot": "foot", "bicycle": "bicycle", "horse": "horse", "motor_vehicle": "motor_vehicle", "ski": "ski"],
        useValues: [
            "yes": .allowed, "designated": .allowed, "permissive": .allowed, "official": .allowed,
            "no": .forbidden, "private": .forbidden
        ],
        impliedUses: ["highway": ["footway": [.foot], "steps": [.foot], "bridleway": [.horse], "cycleway": [.bicycle]]],
        filter: ["highway": ["path", "footway", "track", "bridleway", "cycleway", "steps"]],
        layers: ["lines"],
        tagsField: "other_tags"
    )
}

/// Parses PostgreSQL hstore text as GDAL's OSM driver writes `other_tags`: `"k"=>"v","k2"=>"v2"`,
/// with `\"` and `\\` escapes inside quotes. Malformed text yields the pairs before the fault.
enum HStore {
    static func parse(_ text: String) -> [String: String] {
        var out = [String: String]()
        let s = Array(text.unicodeScalars)
        var i = 0
        func skipSpace() { while i < s.count, s[i] == " " || s[i] == "," { i += 1 } }
        func quoted() -> String? {
            guard i < s.count, s[i] == "\"" else { return nil }
            i += 1
            var v = String.UnicodeScalarView()
            while i < s.count {
                let c = s[i]
                if c == "\\", i + 1 < s.count { v.append(s[i + 1]); i += 2; continue }
                if c == "\"" { i += 1; return String(v) }
                v.append(c)
                i += 1
            }
            return nil
        }
        while true {
            skipSpace()
            guard let key = quoted() else { return out }
            while i < s.count, s[i] == " " { i += 1 }
            guard i + 1 < s.count, s[i] == "=", s[i + 1] == ">" else { return out }
            i += 2
            while i < s.count, s[i] == " " { i += 1 }
            guard let value = quoted() else { return out }
            out[key] = value
        }
    }
}
