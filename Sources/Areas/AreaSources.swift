import Foundation
import TileGeometry
import TileStore

/// The bundles an area product cuts from, opened read-only, in priority order (first wins where
/// they overlap).
struct AreaSources: Sendable {
    struct Source: Sendable {
        let tileset: String
        let path: String
        let reader: BundleReader
        let metadata: BundleMetadata
        let zooms: ClosedRange<Int>
    }

    let sources: [Source]

    /// Opens the bundles `names` (file names) of `directory`.
    init(names: [String], directory: String) throws(AreaError) {
        var out = [Source]()
        for name in names {
            let path = (directory as NSString).appendingPathComponent(name)
            do {
                let reader = try BundleReader(path: path)
                var problems = [String]()
                let meta = try reader.metadata(problems: &problems)
                let levels = try reader.zoomLevels()
                guard let lo = levels.first?.zoom, let hi = levels.last?.zoom else { continue }
                out.append(Source(tileset: String(name.dropLast(".mbtiles".count)), path: path, reader: reader, metadata: meta, zooms: lo...hi))
            } catch {
                throw .cutFailed("bundle \(name): \(error)")
            }
        }
        guard !out.isEmpty else { throw .cutFailed("none of the area product's bundles holds tiles") }
        sources = out
    }

    /// Where the sources have tiles.
    var coverage: GeoBounds { sources.dropFirst().reduce(sources[0].metadata.bounds) { $0.union($1.metadata.bounds) } }

    /// Every zoom some source holds.
    var zooms: ClosedRange<Int> {
        sources.dropFirst().reduce(sources[0].zooms) { min($0.lowerBound, $1.zooms.lowerBound)...max($0.upperBound, $1.zooms.upperBound) }
    }

    /// Tiles and bytes at zoom `z` inside `bounds`: each address once (the first source's tile,
    /// or the largest where several overlap, as a composite may be), identical bytes of one source once.
    func estimate(bounds: GeoBounds, zoom z: Int) throws(AreaError) -> (tiles: Int, bytes: Int) {
        var seen = [TileID: Int]()
        var keys = Set<String>()
        var bytes = 0
        for (i, s) in sources.enumerated() where s.zooms.contains(z) {
            guard let part = bounds.intersection(s.metadata.bounds) else { continue }
            let sizes: [(tile: TileID, key: String, length: Int)]
            do { sizes = try s.reader.tileSizes(range: TileRange(bounds: part, zoom: z)) } catch { throw .cutFailed("\(s.tileset): \(error)") }
            for t in sizes {
                if let earlier = seen[t.tile] {
                    if t.length > earlier { bytes += t.length - earlier; seen[t.tile] = t.length }
                } else if keys.insert("\(i)/\(t.key)").inserted {
                    seen[t.tile] = t.length
                    bytes += t.length
                } else {
                    seen[t.tile] = 0
                }
            }
        }
        return (seen.count, bytes)
    }

    /// An upper estimate of the bundle file for `tiles` tiles of `bytes` distinct bytes: SQLite
    /// pages are never full, each tile has a map row and index entries, each image its hash.
    static func fileBytes(tiles: Int, bytes: Int) -> Int64 {
        Int64(Double(bytes) * 1.06) + Int64(tiles) * 120 + 64 * 1024
    }
}
