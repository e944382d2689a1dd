import Foundation
import TileGeometry

/// Cuts the tiles of a bounding box out of a bundle into a new bundle.
public enum BundleExtractor {
    /// Copies every tile overlapping `bbox` (at every zoom level of the source) into `output`,
    /// with metadata bounds set to the overlap. Returns what was written.
    public static func extract(
        from source: String, bbox: GeoBounds, to output: String,
        name: String? = nil
    ) throws(TileStoreError) -> BundleWriteStats {
        let reader = try BundleReader(path: source)
        var problems = [String]()
        var meta = try reader.metadata(problems: &problems)
        guard let area = bbox.intersection(meta.bounds) else {
            throw .invalidArgument("the box \(bbox) does not overlap the bundle's bounds \(meta.bounds)")
        }
        let writer = try BundleWriter(path: output)
        do throws(TileStoreError) {
            var batch = [(tile: TileID, data: [UInt8])]()
            var failure: TileStoreError?
            for level in try reader.zoomLevels() {
                let range = TileRange(bounds: area, zoom: level.zoom)
                try reader.forEachTile(range: range) { tile, data in
                    batch.append((tile, [UInt8](data)))
                    if batch.count >= 512 {
                        do throws(TileStoreError) { try writer.add(batch) } catch { failure = error; return false }
                        batch.removeAll(keepingCapacity: true)
                    }
                    return true
                }
                if let failure { throw failure }
            }
            try writer.add(batch)
            meta.bounds = area
            let c = area.center
            meta.center = (c.lon, c.lat, meta.minZoom)
            if let name { meta.name = name }
            meta.extra["trailmap:extracted-from"] = URL(fileURLWithPath: source).lastPathComponent
            return try writer.finish(metadata: meta)
        } catch {
            writer.abandon()
            throw error
        }
    }
}
