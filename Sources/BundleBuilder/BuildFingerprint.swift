import Essentials
import Foundation
import Raster
import SourceReaders
import Terrain
import TileGeometry
import TileStore

/// What identifies a build, hashed: `settings` covers everything that decides the tiles and the
/// metadata except the sources (zooms, layers, read overrides, resampling, format and encoder
/// settings, texts); `full` adds each source's path, size and modification time. A partial build
/// resumes only under the same `full` fingerprint; shard parts merge only when their `settings`
/// and sources agree; `--update` needs the same `tileSettings`.
struct BuildFingerprint: Equatable {
    var settings: String
    var full: String
    /// `settings` without the texts (name, description, attribution, version, region id): what
    /// decides the tiles. `--update` needs the same; the texts may change.
    var tileSettings: String
    /// What `tileSettings` hashes, as JSON (sorted keys): recorded so that a refused update can
    /// say which setting differs.
    var tileSettingsJSON: String

    /// One layer as the fingerprint sees it.
    private struct LayerSettings: Codable {
        var name, title, kind: String
        var zooms: [Int]?
        var crs: String?
        var nodata: [Double]?
        var scale: [Double]?
        var gcpTransform: String?
        var bands: [Int]?
        var openOptions: [String]?
        var resampling: String?
        var opacity: Double
    }

    private struct Settings: Codable {
        var builder: String
        var name, description, attribution, version: String
        var regionID: String?
        var zooms: [Int]
        var layers: [LayerSettings]
        var allowGaps, allowOverlap, recordsLayers: Bool
        var clip: [Double]?
        var resampling: String
        var crs: String?
        var nodata: [Double]?
        var scale: [Double]?
        var gcpTransform: String
        var bands: [Int]?
        var openOptions: [String]
        var sharedScales: [String: [Double]]
        var tileSize: Int
        var encoding: TileEncoding
        var unitPolicy: Int
        /// The trails drawn: their name, zooms and the digest of their records and style.
        var trails: [String]?
        /// A hillshade blended into the layers: its DEMs, light, blend, opacity and zooms.
        var terrain: String?
    }

    private struct SourceStamp: Codable {
        var layer: Int
        var path: String
        var size: Int64
        var modified: Int64
    }

    /// `sharedScales`: the joint ranges of layers' non-8-bit sources (`BuildPlan.sharedScales`).
    /// `base`: the fingerprint recorded in the bundle an update starts from.
    /// `sources`: each source's layer, path and stamp (size and modification time).
    /// `trails`: the digest of the trails drawn (`PreparedTrails.digest`).
    init(
        options o: BuildOptions, sources: [(layer: Int, path: String, stamp: SourceFileStamp)], sharedScales: [String: [Double]] = [:],
        base: String? = nil, trails: String? = nil
    ) {
        let layers = o.layers.map { l in
            LayerSettings(
                name: l.name, title: l.title, kind: l.kind.rawValue, zooms: l.zooms.map { [$0.lowerBound, $0.upperBound] },
                crs: l.crs?.wkt, nodata: l.nodata, scale: l.scale.map { [$0.min, $0.max] },
                gcpTransform: l.gcpTransform?.rawValue, bands: l.bands, openOptions: l.openOptions, resampling: l.resampling?.rawValue,
                opacity: l.opacity)
        }
        let s = Settings(
            builder: BundleBuilder.version, name: o.name, description: o.description, attribution: o.attribution,
            version: o.version, regionID: o.regionID, zooms: [o.minZoom, o.maxZoom], layers: layers,
            allowGaps: o.allowGaps, allowOverlap: o.allowOverlap, recordsLayers: o.recordsLayers,
            clip: o.clipBounds.map { [$0.west, $0.south, $0.east, $0.north] }, resampling: o.resampling.rawValue,
            crs: o.read.crs?.wkt, nodata: o.read.nodata, scale: o.read.scale.map { [$0.min, $0.max] },
            gcpTransform: o.read.gcpTransform.rawValue, bands: o.read.bands, openOptions: o.read.openOptions, sharedScales: sharedScales,
            tileSize: o.tileSize, encoding: o.tileEncoding, unitPolicy: BuildUnits.policyVersion,
            trails: trails.map { digest in
                [o.trails?.name ?? "trails", o.trails?.zooms.map { "\($0.lowerBound)-\($0.upperBound)" } ?? "all", digest]
            }, terrain: o.terrain.map(Self.terrain))
        let stamps = sources.map { s in
            SourceStamp(layer: s.layer, path: s.path, size: s.stamp.size, modified: s.stamp.modifiedNanoseconds)
        }
        settings = Self.hash(s)
        var tilesOnly = s
        (tilesOnly.name, tilesOnly.description, tilesOnly.attribution, tilesOnly.version, tilesOnly.regionID) = ("", "", "", "", nil)
        tileSettings = Self.hash(tilesOnly)
        tileSettingsJSON = Self.json(tilesOnly)
        full = Self.hash([settings, Self.hash(stamps)] + (base.map { ["update of \($0)"] } ?? []))
    }

    /// What decides a blended hillshade's pixels, as text.
    private static func terrain(_ t: TerrainLayer) -> String {
        [
            t.sources.joined(separator: ","), String(describing: t.hillshade), t.blend?.rawValue ?? "", "\(t.opacity)",
            t.zooms.map { "\($0.lowerBound)-\($0.upperBound)" } ?? "all", t.crs?.wkt ?? "", t.verticalUnit?.rawValue ?? ""
        ]
        .joined(separator: "|")
    }

    private static func hash<T: Encodable>(_ value: T) -> String {
        FileSHA256.hex(of: Data(json(value).utf8))
    }

    private static func json<T: Encodable>(_ value: T) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: (try? encoder.encode(value)) ?? Data(), as: UTF8.self)
    }

    /// Whether a bundle's recorded `tileSettingsJSON` (`old`, whose hash is `oldHash`: the JSON
    /// must be the one hashed) differs from `new` at most in the trails (false when either cannot be read).
    static func sameIgnoringTrails(_ old: String, hash oldHash: String, _ new: String) -> Bool {
        guard FileSHA256.hex(of: Data(old.utf8)) == oldHash else { return false }
        func withoutTrails(_ text: String) -> Data? {
            guard var object = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] else { return nil }
            object["trails"] = nil
            return try? JSONSerialization.data(withJSONObject: object, options: .sortedKeys)
        }
        guard let a = withoutTrails(old), let b = withoutTrails(new) else { return false }
        return a == b
    }

    /// The settings that differ between two `tileSettingsJSON`s ("zooms", "layer 1's name");
    /// empty when either cannot be read.
    static func differences(_ old: String, _ new: String) -> [SettingDifference] {
        func object(_ text: String) -> [String: Any]? {
            (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any]
        }
        guard let a = object(old), let b = object(new) else { return [] }
        func same(_ x: Any?, _ y: Any?) -> Bool {
            switch (x, y) {
            case (nil, nil): return true
            case let (x?, y?):
                let text = { (v: Any) in (try? JSONSerialization.data(withJSONObject: [v], options: .sortedKeys)) ?? Data() }
                return text(x) == text(y)
            default: return false
            }
        }
        var found = [SettingDifference]()
        for key in Set(a.keys).union(b.keys).sorted() where !same(a[key], b[key]) {
            if key == "layers", let la = a[key] as? [[String: Any]], let lb = b[key] as? [[String: Any]], la.count == lb.count {
                for (i, (x, y)) in zip(la, lb).enumerated() {
                    let fields = Set(x.keys).union(y.keys).sorted().filter { !same(x[$0], y[$0]) }
                    guard !fields.isEmpty else { continue }
                    found.append(.layerFields(layer: i + 1, fields: fields))
                }
            } else {
                found.append(.setting(key))
            }
        }
        return found
    }
}

/// A file's size and modification time (zero when it cannot be read).
struct SourceFileStamp: Equatable {
    var size: Int64 = 0
    var modifiedNanoseconds: Int64 = 0

    /// A plain file's, or a file's in one of GDAL's virtual file systems (a zip member's).
    init(path: String) {
        guard let st = GDALFiles.stat(path) else { return }
        size = st.size
        modifiedNanoseconds = st.modifiedNanoseconds
    }

    /// A source's with the other files GDAL reads for it (`SourceInfo.files`): their sizes added,
    /// their times mixed by position, so that a change in any of them changes the stamp. A
    /// source of one file has that file's stamp.
    init(source: SourceInfo) {
        let files = source.files
        self.init(path: files[0])
        for (i, file) in files.enumerated().dropFirst() {
            let other = SourceFileStamp(path: file)
            size &+= other.size
            modifiedNanoseconds &+= other.modifiedNanoseconds &* Int64(i + 1) &+ other.size
        }
    }
}
