import Foundation
import TileGeometry

extension PMTilesReader {
    /// The archive's metadata as MBTiles metadata rows: the JSON metadata's keys (strings as they
    /// are, other values as JSON text), with what the header says taking precedence: `minzoom`,
    /// `maxzoom`, `bounds` (when the header's box is a valid one), `center` (when it lies in that box) and `format` (for
    /// a PNG, JPEG or WebP tile type). `BundleMetadata(pairs:problems:)` reads the result.
    public func metadataPairs() throws(TileStoreError) -> [String: String] {
        var pairs = [String: String]()
        for (key, value) in try metadataObject() {
            if let s = value as? String {
                pairs[key] = s
            } else if JSONSerialization.isValidJSONObject([value]),
                let data = try? JSONSerialization.data(withJSONObject: [value], options: [.sortedKeys])
            {
                // Wrapped in an array (numbers and booleans are not top-level JSON objects), then unwrapped.
                pairs[key] = String(decoding: data.dropFirst().dropLast(), as: UTF8.self)
            }
        }
        Self.apply(header, to: &pairs)
        return pairs
    }

    /// Writes the header's zooms, bounds, center and format over `pairs`.
    static func apply(_ h: PMTilesHeader, to pairs: inout [String: String]) {
        pairs["minzoom"] = String(h.minZoom)
        pairs["maxzoom"] = String(h.maxZoom)
        if h.bounds.isValid {
            pairs["bounds"] = [h.bounds.west, h.bounds.south, h.bounds.east, h.bounds.north].map { "\($0)" }.joined(separator: ",")
            let b = h.bounds
            if (b.west...b.east).contains(h.centerLon), (b.south...b.north).contains(h.centerLat) {
                pairs["center"] = "\(h.centerLon),\(h.centerLat),\(h.centerZoom)"
            }
        }
        if let format = h.tileType.rasterFormat { pairs["format"] = format }
    }
}
