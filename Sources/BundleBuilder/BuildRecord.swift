import Essentials
import Foundation
import Raster
import SourceReaders
import TileGeometry
import TileStore
import TrailRendering

/// What a bundle records about its build in `trailmap_build` (name → value): the fingerprints,
/// the sources (for `BuildOptions.update`), and in shard parts the shard and what the merge needs.
struct BuildRecord {
    static let fingerprintKey = "fingerprint"
    static let settingsKey = "settings"
    static let tileSettingsKey = "tile-settings"
    /// The tile settings themselves (JSON), so that a refused update can name what differs.
    static let tileSettingsJSONKey = "tile-settings-json"
    static let sourcesKey = "sources"
    static let shardKey = "shard"
    static let planKey = "plan"
    /// "1" when `trailmap:region` comes from the output's file name (a merge names it after its own).
    static let regionFromFileKey = "region-from-file"

    /// One source as built: its layer, path, size, modification time, content hash and footprint
    /// (Web Mercator metres, as the renderer tests it against tiles).
    struct Source: Codable, Equatable {
        var layer: Int
        var path: String
        var size: Int64
        var modified: Int64
        var sha256: String
        var footprint: [Double]

        var mercatorBounds: MercatorBounds {
            MercatorBounds(minX: footprint[0], minY: footprint[1], maxX: footprint[2], maxY: footprint[3])
        }
    }

    /// What a merge needs to make the levels above a part's units: each band's zooms, unit zoom
    /// and tile ranges, the tile size, the encoder's settings and how the trails are drawn.
    struct Plan: Codable, Equatable {
        struct Band: Codable, Equatable {
            var zooms: [Int]
            var unitZoom: Int
            /// z, minX, maxX, minY, maxY per zoom, lowest first.
            var ranges: [[Int]]
        }
        /// The trails drawn (the parts store their records): the layer's name and title, the
        /// zooms they are drawn at, and their style. Nil without trails.
        struct Trails: Codable, Equatable {
            var name: String
            var title: String
            var zooms: [Int]
            var style: TrailStyle
        }
        var bands: [Band]
        var tileSize: Int
        var encoding: TileEncoding
        var trails: Trails?

        static func == (a: Plan, b: Plan) -> Bool {
            a.bands == b.bands && a.tileSize == b.tileSize && BuildRecord.json(a.encoding) == BuildRecord.json(b.encoding)
                && a.trails == b.trails
        }
    }

    /// The record a source gets when it changed while the build read it: no hash matches it, so
    /// the next update makes its tiles again.
    static let changedDuringBuild = ""

    /// The source records of a build. `stamps`: each source's size and modification time when
    /// the build began (default: now). A source with a record in `known` (same layer, path,
    /// footprint, size and modification time) keeps that record's hash: an update's unchanged
    /// sources are not read again, and their record names the content the kept tiles were made
    /// from. Every other source file is hashed. A source whose stamp is no longer the one it had
    /// when the build began is recorded as `changedDuringBuild`.
    /// `hashed` is called after each source with the count done and the total.
    static func sources(
        _ planned: [PlannedSource], known: [Source] = [],
        stamps: [SourceFileStamp]? = nil, hashed: (Int, Int) -> Void = { _, _ in }
    ) throws(BuildError) -> [Source] {
        var out = [Source]()
        defer { hashed(out.count, planned.count) }
        // The last record of each layer and path (an update's fresh hashes after the old ones).
        let byKey = Dictionary(known.map { ("\($0.layer)\u{0}\($0.path)", $0) }, uniquingKeysWith: { _, last in last })
        for (i, source) in planned.enumerated() {
            let info = source.info
            if i > 0 { hashed(i, planned.count) }
            let stamp = stamps?[i] ?? SourceFileStamp(source: info)
            let footprint = Self.footprint(info)
            let moved = stamps != nil && SourceFileStamp(source: info) != stamp
            if let k = byKey["\(source.layer)\u{0}\(info.path)"],
                k.size == stamp.size, k.modified == stamp.modifiedNanoseconds, k.footprint == footprint
            {
                out.append(
                    Source(
                        layer: k.layer, path: k.path, size: k.size, modified: k.modified,
                        sha256: moved ? changedDuringBuild : k.sha256, footprint: footprint))
                continue
            }
            let digest: (size: Int64, hex: String)
            if info.files.count > 1 || GDALFiles.isGDALName(info.path) {
                // Through GDAL's file system (a zip member, a subdataset's container), and the
                // files GDAL reads with the source one after the other.
                do throws(SourceReaderError) {
                    digest = try FileSHA256.digest { (feed) throws(SourceReaderError) in
                        for file in info.files { try GDALFiles.read(file, into: feed) }
                    }
                } catch { throw .source(error) }
            } else {
                do { digest = try FileSHA256.digest(path: info.path) } catch { throw .sourceList(path: info.path, reason: "\(error)") }
            }
            out.append(
                Source(
                    layer: source.layer, path: info.path, size: stamp.size, modified: stamp.modifiedNanoseconds,
                    sha256: moved ? changedDuringBuild : digest.hex, footprint: footprint))
        }
        return out
    }

    /// A source's footprint as its record holds it.
    static func footprint(_ info: SourceInfo) -> [Double] {
        let m = info.mercatorBounds
        return [m.minX, m.minY, m.maxX, m.maxY]
    }

    static func json<T: Encodable>(_ value: T) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: (try? encoder.encode(value)) ?? Data(), as: UTF8.self)
    }

    static func decode<T: Decodable>(_ type: T.Type, _ text: String?) -> T? {
        text.flatMap { try? JSONDecoder().decode(T.self, from: Data($0.utf8)) }
    }
}
