import Foundation
import TileGeometry

/// Checks a bundle: schema, metadata (its levels of detail among it), SQLite integrity, tile
/// addresses, and every tile's content.
public enum BundleVerifier {
    /// Returns the problems found (empty when the bundle is sound). `checkTile` inspects one tile's
    /// bytes and returns a problem or nil (the CLI decodes the tile there, in the bundle's format).
    public static func verify(
        path: String, maxReported: Int = 50,
        checkTile: (TileID, Data) -> String?
    ) -> [String] {
        let reader: BundleReader
        do { reader = try BundleReader(path: path) } catch { return ["\(error)"] }
        var problems = [String]()
        do {
            problems += try reader.integrityProblems().map { "integrity_check: \($0)" }
            let pairs = try reader.metadataPairs()
            for key in BundleMetadata.requiredKeys where pairs[key] == nil {
                problems.append("metadata key \"\(key)\" is missing")
            }
            let meta = BundleMetadata(pairs: pairs, problems: &problems)
            if let f = pairs["format"], !["png", "webp", "jpg", "jpeg"].contains(f.lowercased()) {
                problems.append("metadata format is \"\(f)\", expected png, webp or jpg")
            }
            if let size = pairs[BundleMetadata.tileSizeKey], BundleMetadata.tileSize(pairs) == nil {
                problems.append("metadata \"\(BundleMetadata.tileSizeKey)\" is \"\(size)\", expected 256 or 512")
            }
            if meta.minZoom > meta.maxZoom { problems.append("metadata minzoom \(meta.minZoom) > maxzoom \(meta.maxZoom)") }
            if !(0...TileID.maxZoom).contains(meta.maxZoom) { problems.append("metadata maxzoom \(meta.maxZoom) is outside 0...22") }
            if pairs["bounds"] != nil, !meta.bounds.isValid { problems.append("metadata bounds \(meta.bounds) are not a valid box") }
            if let problem = BundleLayer.problem(metadata: pairs) {
                problems.append(problem)
            } else if let layers = BundleLayer.decode(metadata: pairs) {
                problems += BundleLayer.zoomProblems(layers, minZoom: meta.minZoom, maxZoom: meta.maxZoom)
            }
            var bad = 0
            var count = 0
            try reader.forEachTile(invalid: { z, x, row in
                bad += 1
                if bad <= maxReported { problems.append("tile row with impossible address z=\(z) column=\(x) row=\(row)") }
            }) { tile, data in
                count += 1
                if tile.z < meta.minZoom || tile.z > meta.maxZoom {
                    bad += 1
                    if bad <= maxReported { problems.append("tile \(tile) is outside the zoom range \(meta.minZoom)...\(meta.maxZoom)") }
                }
                if let problem = checkTile(tile, data) {
                    bad += 1
                    if bad <= maxReported { problems.append("tile \(tile): \(problem)") }
                }
                return true
            }
            if bad > maxReported { problems.append("... and \(bad - maxReported) more tile problems") }
            if count == 0 { problems.append("the bundle holds no tiles") }
        } catch {
            problems.append("\(error)")
        }
        return problems
    }
}
