import Foundation
import TileGeometry
import TileStore

/// Identity of a file on disk; a change means the bundle was replaced or modified.
struct FileIdentity: Equatable, Sendable {
    var device: UInt64
    var inode: UInt64
    var size: Int64
    var modified: Int64

    init?(path: String) {
        guard let a = try? FileManager.default.attributesOfItem(atPath: path) else { return nil }
        device = (a[.systemNumber] as? NSNumber)?.uint64Value ?? 0
        inode = (a[.systemFileNumber] as? NSNumber)?.uint64Value ?? 0
        size = (a[.size] as? NSNumber)?.int64Value ?? 0
        modified = Int64(((a[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0) * 1_000_000_000)
    }
}

/// One served bundle: its metadata and a read pool on the file it was opened from.
public final class Tileset: Sendable {
    /// The file name without `.mbtiles`.
    public let id: String
    public let path: String
    let identity: FileIdentity
    /// Why the bundle cannot be served (corrupt, unreadable), or nil.
    public let failure: String?
    public let metadata: BundleMetadata
    public let metadataPairs: [String: String]
    let pool: TileReadPool?
    /// Whether the stored tile ids are TrailMap's content hashes (usable as ETags directly).
    let hashedTileIDs: Bool
    /// Tile size in pixels (for transparent empty tiles).
    let tileSize: Int

    init(id: String, path: String, identity: FileIdentity) {
        self.id = id
        self.path = path
        self.identity = identity
        var pairs = [String: String]()
        var meta = BundleMetadata(name: id, bounds: .world, minZoom: 0, maxZoom: 0)
        var pool: TileReadPool?
        var failure: String?
        do {
            let reader = try BundleReader(path: path)
            pairs = try reader.metadataPairs()
            var problems = [String]()
            meta = BundleMetadata(pairs: pairs, problems: &problems)
            if pairs["minzoom"] == nil || pairs["maxzoom"] == nil {
                // Other tools sometimes omit the zoom range: read it from the tiles.
                let levels = try reader.zoomLevels()
                if let lo = levels.first?.zoom, let hi = levels.last?.zoom {
                    meta.minZoom = lo
                    meta.maxZoom = hi
                }
            }
            if meta.name.isEmpty { meta.name = id }
            pool = try TileReadPool(path: path, layout: reader.layout)
        } catch {
            failure = "\(error)"
        }
        self.metadata = meta
        self.metadataPairs = pairs
        self.pool = pool
        self.failure = failure
        hashedTileIDs = pairs["trailmap:builder"] != nil
        tileSize = pairs["trailmap:tilesize"].flatMap(Int.init).flatMap { [256, 512].contains($0) ? $0 : nil } ?? 256
    }

    /// Valid tileset ids: letters, digits, `-`, `_`, `.`, not starting with a dot, at most 128 characters.
    public static func isValidID<S: StringProtocol>(_ id: S) -> Bool {
        guard !id.isEmpty, id.count <= 128, id.first != "." else { return false }
        return id.utf8.allSatisfy { c in
            (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == 0x2D || c == 0x5F || c == 0x2E
        }
    }
}
