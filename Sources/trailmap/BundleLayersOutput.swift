import Foundation
import TileStore

/// The levels of detail (`trailmap:layers`) as `trailmap bundle inspect` shows them.
enum BundleLayersOutput {
    /// How many source names a text line lists before it only counts the rest.
    static let sourcesShown = 5

    /// The text section: a heading and one line per layer, or why there is none.
    static func lines(metadata pairs: [String: String]) -> [String] {
        if let problem = BundleLayer.problem(metadata: pairs) { return ["levels of detail: invalid (\(problem))"] }
        guard let layers = BundleLayer.decode(metadata: pairs), !layers.isEmpty else {
            return ["levels of detail: none recorded"]
        }
        let names = layers.map(\.name.count).max() ?? 0, titles = layers.map { $0.title.count + 2 }.max() ?? 0
        func pad(_ s: String, _ width: Int) -> String { s.padding(toLength: max(width, s.count), withPad: " ", startingAt: 0) }
        return ["levels of detail (lower first):"]
            + layers.map { l in
                let zooms = l.minzoom == l.maxzoom ? "\(l.minzoom)" : "\(l.minzoom)-\(l.maxzoom)"
                return "  "
                    + [
                        pad(l.name, names), pad(l.kind.rawValue, 7), "zooms " + pad(zooms, 5), pad("\"\(l.title)\"", titles),
                        "sources: \(sources(l.sources))"
                    ].joined(separator: "  ")
            }
    }

    /// `a.tif, b.tif`, or the first few names and a count when there are many.
    static func sources(_ names: [String]) -> String {
        guard !names.isEmpty else { return "none" }
        guard names.count > sourcesShown else { return names.joined(separator: ", ") }
        return names.prefix(sourcesShown - 1).joined(separator: ", ") + " and \(names.count - sourcesShown + 1) more"
    }

    /// One layer in `bundle inspect --json` (its sources included: the file is the builder's).
    struct Layer: Encodable {
        var name: String
        var title: String
        var kind: String
        var minzoom: Int
        var maxzoom: Int
        var sources: [String]
        var summary: String
    }

    /// The JSON fields: `layers` (an array, empty when none is recorded, null when the value is
    /// invalid) and, for an invalid value, `layersProblem`.
    struct Fields {
        var layers: [Layer]?
        var layersProblem: String?
    }

    static func json(metadata pairs: [String: String]) -> Fields {
        if let problem = BundleLayer.problem(metadata: pairs) { return Fields(layers: nil, layersProblem: problem) }
        let layers = BundleLayer.decode(metadata: pairs) ?? []
        return Fields(
            layers: layers.map { l in
                Layer(
                    name: l.name, title: l.title, kind: l.kind.rawValue, minzoom: l.minzoom, maxzoom: l.maxzoom, sources: l.sources,
                    summary: l.summary)
            }, layersProblem: nil)
    }
}
