/// Why a bundle cannot be updated in place of a full build (`BuildOptions.update`).
/// `description` names no command-line flag.
public enum UpdateProblem: Sendable, Equatable, CustomStringConvertible {
    /// The bundle cannot be read (its error, the path left out).
    case unreadable(String)
    /// It records no sources: it was not built by this version of TrailMap.
    case noSourcesRecorded
    /// It is one part of a sharded build: the merged bundle is the one to update.
    case shardPart
    /// It was built with other settings than the update's: those that differ (empty when the
    /// record cannot tell), and the builder that made it when that is not this one.
    case otherSettings(differing: [SettingDifference], builtBy: String?)
    /// Layer `layer` (1-based), named `name` after its first source, is not the bundle's layer
    /// `recordedName` at its place: none of its sources has the content or the file name of one
    /// that layer was built from.
    case otherLayer(layer: Int, name: String, recordedName: String)

    public var description: String { description(naming: SettingDifference.words) }

    /// The problem, settings named by `words` (a fingerprint's key → its name).
    public func description(naming words: [String: String]) -> String {
        switch self {
        case let .unreadable(message): message
        case .noSourcesRecorded: "it records no sources (it was not built by this version of TrailMap): run a full build"
        case .shardPart: "it is one part of a sharded build: merge the parts and update the result"
        case let .otherSettings(differing, builtBy):
            "it was built with other settings (\(SettingDifference.list(differing, words: words))): run a full build."
                + Self.builtBy(builtBy)
        case let .otherLayer(layer, name, recordedName):
            """
            its layer \(layer) is \"\(recordedName)\", and layer \(layer) of this build (\"\(name)\") is another one: none of its sources \
            has the content or the file name of one \"\(recordedName)\" was built from; run a full build
            """
        }
    }

    /// " It was built by BUILDER; ..." when another builder made it, else empty.
    public static func builtBy(_ builder: String?) -> String {
        builder.map { " It was built by \($0); this is \(BundleBuilder.version), which draws tiles differently." } ?? ""
    }
}

/// A setting a bundle was built with that differs from an update's: a key of the build's tile
/// settings, or fields of one of its layers.
public enum SettingDifference: Sendable, Equatable {
    /// A key of the tile settings (`zooms`, `clip`, `crs`, ...).
    case setting(String)
    /// Fields of layer `layer` (1-based) that differ (`name`, `opacity`, ...).
    case layerFields(layer: Int, fields: [String])

    /// The settings' names by what they do, as a reader of the bundle knows them.
    public static let words: [String: String] = [
        "builder": "builder version", "zooms": "zooms", "layers": "layers", "allowGaps": "zoom gaps allowed",
        "allowOverlap": "layer overlap", "recordsLayers": "layer records", "clip": "bounds", "resampling": "resampling",
        "crs": "sources' CRS", "nodata": "sources' nodata", "scale": "value range to scale", "gcpTransform": "ground control point fit",
        "bands": "bands read", "openOptions": "GDAL open options",
        "sharedScales": "joint range of 16-bit sources (a new or changed source can widen it)",
        "tileSize": "tile size", "encoding": "tile format and encoder", "unitPolicy": "builder's division of work",
        "name": "name", "title": "title", "kind": "kind", "opacity": "opacity"
    ]

    /// The differences in words ("these differ: zooms, layer 1's name"), or the settings that
    /// may when none is known.
    public static func list(_ differing: [SettingDifference], words: [String: String]) -> String {
        guard !differing.isEmpty else {
            return
                """
                zooms, layers, tile size, format, encoder, resampling, read overrides, the joint range of 16-bit sources, which a new or \
                changed source can widen, or the builder's version
                """
        }
        return "these differ: "
            + differing.map { d in
                switch d {
                case let .setting(key): return words[key] ?? key
                case let .layerFields(layer, fields):
                    let named = fields.contains("name") || fields.contains("title")
                    return "layer \(layer)'s " + fields.map { words[$0] ?? $0 }.joined(separator: " and ")
                        + (named ? " (taken from its first source unless given: did the sources' order change?)" : "")
                }
            }.joined(separator: ", ")
    }
}
