import Foundation
import TileGeometry

/// Checks a PMTiles v3 archive (`bundle verify` on a `.pmtiles`): the header (sections inside the
/// file, compressions, the root within the first 16 KiB, zooms, bounds, a raster tile type),
/// the JSON metadata, every directory (decodes, entries inside their sections, leaves in their
/// ranges, no cycles), the header's counts and clustered flag against the directories, and every
/// distinct tile content (`checkTile` decodes it in the archive's format).
public enum PMTilesVerifier {
    /// Returns the problems found (empty when the archive is sound). `checkTile` gets each
    /// distinct content once, with the first tile that uses it, and returns a problem or nil.
    public static func verify(path: String, maxReported: Int = 50, checkTile: (TileID, Data) -> String?) -> [String] {
        let reader: PMTilesReader
        do { reader = try PMTilesReader(path: path) } catch { return ["\(error)"] }
        let h = reader.header
        var problems = [String]()
        let rootEnd = h.rootOffset + h.rootLength
        if rootEnd > UInt64(PMTilesFormat.rootLimit) {
            problems.append(
                "the root directory ends at byte \(rootEnd), past the first \(PMTilesFormat.rootLimit) bytes the specification requires")
        }
        if !h.tileType.isServable {
            problems.append("tile type \(h.tileType): TrailMap serves PNG, JPEG and WebP tiles")
        }
        if h.maxZoom > TileID.maxZoom { problems.append("max zoom \(h.maxZoom) is above \(TileID.maxZoom)") }
        if !h.bounds.isValid { problems.append("the header's bounds \(h.bounds) are not a valid box") }
        do {
            let pairs = try reader.metadataPairs()
            if pairs["name"] == nil { problems.append("the JSON metadata has no \"name\"") }
            if let size = pairs[BundleMetadata.tileSizeKey], BundleMetadata.tileSize(pairs) == nil {
                problems.append("metadata \"\(BundleMetadata.tileSizeKey)\" is \"\(size)\", expected 256 or 512")
            }
            if let problem = BundleLayer.problem(metadata: pairs) { problems.append(problem) }
        } catch {
            problems.append(error.problemDescription)
        }

        let summary = PMTilesSummary(reader, maxReported: maxReported)
        problems += summary.problems
        for (name, recorded, actual) in [
            ("addressed tiles", h.addressedTiles, summary.addressedTiles),
            ("tile entries", h.tileEntries, summary.tileEntries),
            ("tile contents", h.tileContents, summary.contents.count)
        ]
        where recorded != 0 && recorded != UInt64(actual) {
            problems.append("the header records \(recorded) \(name), the directories hold \(actual)")
        }
        if h.clustered, !summary.clusteredOrder {
            problems.append("the header says clustered, but tile data is not in tile-id order")
        }
        if summary.addressedTiles == 0 { problems.append("the archive holds no tiles") }

        var bad = 0
        func report(_ message: String) {
            bad += 1
            if bad <= maxReported { problems.append(message) }
        }
        for level in summary.levels where level.zoom < h.minZoom || level.zoom > h.maxZoom {
            report("\(level.tiles) tiles of zoom \(level.zoom) lie outside the header's zoom range \(h.minZoom)...\(h.maxZoom)")
        }
        for content in summary.contents {
            let others = content.tiles > 1 ? " (and \(content.tiles - 1) more tiles with the same bytes)" : ""
            do {
                let bytes = try reader.tileData(offset: content.offset, length: content.length)
                if let problem = checkTile(content.firstTile, Data(bytes)) { report("tile \(content.firstTile)\(others): \(problem)") }
            } catch {
                report("tile \(content.firstTile)\(others): \(error)")
            }
        }
        if bad > maxReported { problems.append("... and \(bad - maxReported) more tile problems") }
        return problems
    }
}
