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
                let pairs = try reader.metadataPairs()
                var problems = [String]()
                let meta = BundleMetadata(pairs: pairs, problems: &problems)
                // The metadata's zooms (published bundles have them): counting the tiles' zooms
                // scans the whole bundle, which a quote should not do.
                guard let zooms = try reader.zoomRange(declaredIn: pairs) else { continue }
                out.append(
                    Source(tileset: String(name.dropLast(".mbtiles".count)), path: path, reader: reader, metadata: meta, zooms: zooms))
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

    /// Tiles and stored bytes (`storedBytes`) at zoom `z` inside `bounds`: each address once (the
    /// first source's tile, or the largest where several overlap, as a composite may be),
    /// identical bytes of one source once.
    func estimate(bounds: GeoBounds, zoom z: Int) throws(AreaError) -> (tiles: Int, bytes: Int) {
        var seen = [TileID: Int]()
        var keys = Set<String>()
        var bytes = 0
        for (i, s) in sources.enumerated() where s.zooms.contains(z) {
            guard let part = bounds.intersection(s.metadata.bounds) else { continue }
            let sizes: [(tile: TileID, key: String, length: Int)]
            do { sizes = try s.reader.tileSizes(range: TileRange(bounds: part, zoom: z)) } catch {
                throw .cutFailed("\(s.tileset): \(error)")
            }
            for t in sizes {
                let stored = Self.storedBytes(t.length)
                if let earlier = seen[t.tile] {
                    if stored > earlier { bytes += stored - earlier; seen[t.tile] = stored }
                } else if keys.insert("\(i)/\(t.key)").inserted {
                    seen[t.tile] = stored
                    bytes += stored
                } else {
                    seen[t.tile] = 0
                }
            }
        }
        return (seen.count, bytes)
    }

    /// An upper estimate of the file bytes one distinct image of `length` bytes takes: its row
    /// (hash and cell), and for images larger than a page the unused end of its last overflow
    /// page (measured: 934 bytes an image on average for 7.3 KB images, 4 KiB pages).
    static func storedBytes(_ length: Int) -> Int {
        length <= 3000 ? length * 5 / 4 + 150 : length + length / 50 + 1000
    }

    /// An upper estimate of the bundle file for `tiles` tiles whose distinct images take `bytes`
    /// (`storedBytes`): each tile's map row and index entries, the schema and metadata pages.
    static func fileBytes(tiles: Int, bytes: Int) -> Int64 {
        Int64(bytes) + Int64(tiles) * 100 + 64 * 1024
    }
}
