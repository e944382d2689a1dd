import Foundation

extension BundleLayer {
    /// Why a bundle's `trailmap:layers` value is not a valid layer list, in words its maker can act
    /// on; nil when the key is absent or the value is valid (exactly when `decode(metadata:)`
    /// returns a list).
    public static func problem(metadata pairs: [String: String]) -> String? {
        guard let text = pairs[metadataKey], decode(metadata: pairs) == nil else { return nil }
        let start = "metadata \"\(metadataKey)\" is not a valid layer list"
        let layers: [BundleLayer]
        do {
            layers = try JSONDecoder().decode([BundleLayer].self, from: Data(text.utf8))
        } catch {
            return "\(start): \(explain(error))"
        }
        if let (i, l) = layers.enumerated().first(where: { $0.element.minzoom < 0 || $0.element.minzoom > $0.element.maxzoom }) {
            return "\(start): layer \(i + 1) (\"\(l.name)\") has minzoom \(l.minzoom) and maxzoom \(l.maxzoom)"
        }
        return start
    }

    /// The layers whose zooms lie outside the bundle's `minZoom...maxZoom`, one sentence each.
    public static func zoomProblems(_ layers: [BundleLayer], minZoom: Int, maxZoom: Int) -> [String] {
        layers.filter { $0.minzoom < minZoom || $0.maxzoom > maxZoom }.map {
            "layer \"\($0.name)\" serves \($0.zoomWords), outside the bundle's zooms \(minZoom)–\(maxZoom)"
        }
    }

    private static func explain(_ error: any Error) -> String {
        switch error {
        case let DecodingError.keyNotFound(key, ctx): "\"\(key.stringValue)\" is missing\(place(ctx))"
        case let DecodingError.typeMismatch(_, ctx) where ctx.codingPath.isEmpty,
            let DecodingError.dataCorrupted(ctx) where ctx.codingPath.isEmpty:
            "not a JSON array of layers"
        case let DecodingError.typeMismatch(_, ctx), let DecodingError.valueNotFound(_, ctx): "wrong type\(place(ctx))"
        case let DecodingError.dataCorrupted(ctx):
            ctx.codingPath.last?.stringValue == "kind"
                ? "kind must be series or overlay\(place(ctx, field: false))" : "invalid value\(place(ctx))"
        default: "\(error)"
        }
    }

    /// ` at layer 2, "minzoom"` for a coding path `[1].minzoom` (` at layer 2` without `field`).
    private static func place(_ ctx: DecodingError.Context, field: Bool = true) -> String {
        guard let first = ctx.codingPath.first else { return "" }
        guard let index = first.intValue else { return " (expected an array of layers)" }
        let name = field ? ctx.codingPath.dropFirst().first.map { ", \"\($0.stringValue)\"" } ?? "" : ""
        return " at layer \(index + 1)\(name)"
    }
}
