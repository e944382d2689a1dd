import Foundation

/// One level of detail of a bundle: a layer of its build (a map series, or an overlay drawn over
/// the series), the zooms it serves and the source files it was made from. Stored in the
/// bundle's metadata as the JSON array `trailmap:layers`, lower layers first.
public struct BundleLayer: Sendable, Equatable, Codable {
    /// A map series (base imagery) or an overlay (lines, labels drawn over the series).
    public enum Kind: String, Sendable, Codable, CaseIterable {
        case series, overlay
    }

    /// Short identifier, e.g. `quads-7.5`.
    public var name: String
    /// What a buyer reads, e.g. `7.5-minute maps` or `Trails`.
    public var title: String
    public var kind: Kind
    public var minzoom: Int
    public var maxzoom: Int
    /// The source files' names (no folders).
    public var sources: [String]

    public init(name: String, title: String, kind: Kind, minzoom: Int, maxzoom: Int, sources: [String]) {
        self.name = name
        self.title = title
        self.kind = kind
        self.minzoom = minzoom
        self.maxzoom = maxzoom
        self.sources = sources
    }

    /// The metadata key.
    public static let metadataKey = "trailmap:layers"

    /// The zoom range in words: `zoom 8` or `zooms 8–11`.
    public var zoomWords: String {
        minzoom == maxzoom ? "zoom \(minzoom)" : "zooms \(minzoom)–\(maxzoom)"
    }

    /// The layer in a buyer's words: `30-minute maps, zooms 8–11` or `Trails overlay, zooms 8–15`.
    public var summary: String {
        kind == .overlay ? "\(title) overlay, \(zoomWords)" : "\(title), \(zoomWords)"
    }

    /// All layers in a buyer's words, `; `-separated.
    public static func summary(_ layers: [BundleLayer]) -> String {
        layers.map(\.summary).joined(separator: "; ")
    }

    /// The metadata value for `layers`.
    public static func encode(_ layers: [BundleLayer]) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding plain strings and integers cannot fail.
        return String(decoding: try! encoder.encode(layers), as: UTF8.self)
    }

    /// The layers recorded in a bundle's metadata: empty when the key is absent (bundles built
    /// before levels of detail), nil when it is present but not a valid layer list.
    public static func decode(metadata pairs: [String: String]) -> [BundleLayer]? {
        guard let text = pairs[metadataKey] else { return [] }
        guard let layers = try? JSONDecoder().decode([BundleLayer].self, from: Data(text.utf8)),
            layers.allSatisfy({ $0.minzoom <= $0.maxzoom && $0.minzoom >= 0 })
        else { return nil }
        return layers
    }
}
