import Foundation
import Trails

/// How a vector layer's attributes become a trail's fields. Every field named here must exist in
/// the layer, unless the mapping has a `tagsField` (OpenStreetMap's `other_tags`), where names
/// that are not columns are looked up as tags. Values are compared trimmed and lowercased.
///
/// As JSON (every key optional):
///
///     {"id": "TRAIL_ID", "name": "NAME", "ref": "REF", "surface": "SURFACE",
///      "difficulty": ["RATING"], "difficultyValues": {"RATING": {"green": "easy", "black": "hard"}},
///      "uses": {"foot": "HIKE", "bicycle": "BIKE"}, "useValues": {"y": "allowed", "n": "forbidden"},
///      "filter": {"TYPE": ["trail"]}, "layers": ["trails"]}
public struct TrailFieldMapping: Sendable, Equatable, Codable {
    /// Field whose value identifies a feature across rebuilds (see `TrailID`); nil: name, ref and geometry do.
    public var id: String?
    /// What the id values are called in identities (default `field:ID-FIELD`), e.g. `osm:way`.
    public var idNamespace: String?
    public var name: String?
    public var ref: String?
    public var surface: String?
    /// Fields that give the difficulty, in order: the first whose value is in `difficultyValues` wins.
    public var difficulty: [String]?
    /// Per difficulty field, value to difficulty.
    public var difficultyValues: [String: [String: TrailDifficulty]]?
    /// Use (`foot`, `bicycle`, `horse`, `motor_vehicle`, `ski`) to the field saying whether it is allowed.
    public var uses: [String: String]?
    /// Value of a use field to allowed or forbidden (others: unknown).
    public var useValues: [String: UseAccess]?
    /// Uses a field's value implies allowed (e.g. `highway=bridleway` allows horses) unless the
    /// use's own field says otherwise: field, value, uses.
    public var impliedUses: [String: [String: [TrailUse]]]?
    /// Only features whose field holds one of the values (all fields must match).
    public var filter: [String: [String]]?
    /// Only these layers (default: every layer with lines).
    public var layers: [String]?
    /// A field holding more attributes as an hstore string (`"key"=>"value",...`).
    public var tagsField: String?
    /// A mapped field the layer lacks reads as empty instead of being an error (a tagged export
    /// has a column only for the tags some feature carries).
    public var absentFieldsAreEmpty: Bool?

    public init(
        id: String? = nil, idNamespace: String? = nil, name: String? = nil, ref: String? = nil, surface: String? = nil,
        difficulty: [String]? = nil, difficultyValues: [String: [String: TrailDifficulty]]? = nil,
        uses: [String: String]? = nil, useValues: [String: UseAccess]? = nil,
        impliedUses: [String: [String: [TrailUse]]]? = nil, filter: [String: [String]]? = nil,
        layers: [String]? = nil, tagsField: String? = nil
    ) {
        self.id = id
        self.idNamespace = idNamespace
        self.name = name
        self.ref = ref
        self.surface = surface
        self.difficulty = difficulty
        self.difficultyValues = difficultyValues
        self.uses = uses
        self.useValues = useValues
        self.impliedUses = impliedUses
        self.filter = filter
        self.layers = layers
        self.tagsField = tagsField
    }

    /// The generic default: `name` and `ref` fields when the layer has them, nothing else.
    public static let generic = TrailFieldMapping()

    /// Reads a mapping from a JSON file; unknown uses are refused.
    public static func load(path: String) throws(TrailIngestError) -> TrailFieldMapping {
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
            throw .badMapping(path: path, reason: "cannot read it: \(error.localizedDescription)")
        }
        let mapping: TrailFieldMapping
        do { mapping = try JSONDecoder().decode(TrailFieldMapping.self, from: data) } catch let DecodingError.dataCorrupted(c) {
            throw .badMapping(path: path, reason: Self.where(c) + c.debugDescription)
        } catch let DecodingError.typeMismatch(_, c) {
            throw .badMapping(path: path, reason: Self.where(c) + c.debugDescription)
        } catch {
            throw .badMapping(path: path, reason: "\(error)")
        }
        for key in (mapping.uses ?? [:]).keys.sorted() where TrailUse(rawValue: key) == nil {
            throw .badMapping(path: path, reason: "uses: \(key) is not one of \(TrailUse.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        for field in (mapping.difficultyValues ?? [:]).keys.sorted() where !(mapping.difficulty ?? []).contains(field) {
            throw .badMapping(path: path, reason: "difficultyValues: \(field) is not one of the difficulty fields")
        }
        for field in mapping.difficulty ?? [] where mapping.difficultyValues?[field] == nil {
            throw .badMapping(path: path, reason: "difficulty: \(field) has no difficultyValues")
        }
        if mapping.uses?.isEmpty == false, mapping.useValues?.isEmpty != false {
            throw .badMapping(path: path, reason: "uses: give useValues too (which values allow a use and which forbid it)")
        }
        return mapping
    }

    private static func `where`(_ c: DecodingError.Context) -> String {
        let path = c.codingPath.map(\.stringValue).joined(separator: ".")
        return path.isEmpty ? "" : "\(path): "
    }

    /// Every source field the mapping reads, with the trail field it feeds (for checking them against a layer).
    var namedFields: [(field: String, role: String)] {
        var out = [(String, String)]()
        if let id { out.append((id, "id")) }
        if let name { out.append((name, "name")) }
        if let ref { out.append((ref, "ref")) }
        if let surface { out.append((surface, "surface")) }
        for f in difficulty ?? [] { out.append((f, "difficulty")) }
        for (use, f) in (uses ?? [:]).sorted(by: { $0.key < $1.key }) { out.append((f, "uses.\(use)")) }
        for f in (impliedUses ?? [:]).keys.sorted() { out.append((f, "impliedUses")) }
        for f in (filter ?? [:]).keys.sorted() { out.append((f, "filter")) }
        return out
    }
}
