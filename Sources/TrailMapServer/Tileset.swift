import Essentials
import Foundation
import Raster
import TileCache
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

/// One served bundle (`.mbtiles`) or archive (`.pmtiles`, see `TilesetFile`): its metadata and a
/// lazily opened tile source on the file it was scanned from. The file stays referenced by a
/// descriptor from the scan on, and the source opens it through `/proc/self/fd/N`: a file
/// replaced on disk keeps being read from its own file.
public final class Tileset: Sendable {
    /// The file name without `.mbtiles` or `.pmtiles`.
    public let id: String
    public let path: String
    let identity: FileIdentity
    /// Why the bundle cannot be served (corrupt, unreadable), or nil: for the server's log only,
    /// as it may name server paths.
    public let failure: String?
    /// The reason clients are given when `failure` is set: `failure` with every file path replaced
    /// by the bundle's file name, so no answer discloses where the server keeps its files.
    public let publicFailure: String?
    public let metadata: BundleMetadata
    public let metadataPairs: [String: String]
    /// The file's tile source, opened on first read by the cache's bundle manager.
    let bundle: LazyBundle?
    /// Descriptor holding the scanned file (closed with the tileset).
    private let fd: Int32
    /// Whether the stored tile ids are TrailMap's content hashes (usable as ETags directly).
    let hashedTileIDs: Bool
    /// Tile size in pixels (for transparent empty tiles).
    let tileSize: Int
    /// The tiles' format (metadata `format`; PNG when absent or unknown): the URL's extension.
    let format: TileFormat

    init(id: String, path: String, identity: FileIdentity, bundles: BundleManager) {
        self.id = id
        self.path = path
        self.identity = identity
        var pairs = [String: String]()
        var meta = BundleMetadata(name: id, bounds: .world, minZoom: 0, maxZoom: 0)
        var bundle: LazyBundle?
        var failure: String?
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        self.fd = fd
        do {
            guard fd >= 0 else { throw TileStoreError.unreadable(path: path, reason: String(cString: strerror(errno))) }
            let file = try TilesetFile.describe(path: path)
            pairs = file.pairs
            var problems = [String]()
            meta = BundleMetadata(pairs: pairs, problems: &problems)
            if let zooms = file.zooms {
                meta.minZoom = zooms.lowerBound
                meta.maxZoom = zooms.upperBound
            }
            if meta.name.isEmpty { meta.name = id }
            bundle = bundles.register(path: "/proc/self/fd/\(fd)", kind: file.kind)
        } catch {
            failure = "\(error)"
        }
        self.metadata = meta
        self.metadataPairs = pairs
        self.bundle = bundle
        self.failure = failure
        publicFailure = failure.map { Self.redactingPaths($0, path: path) }
        hashedTileIDs = pairs["trailmap:builder"] != nil
        tileSize = BundleMetadata.tileSize(pairs) ?? 256
        format = pairs["format"].flatMap(TileFormat.init(metadata:)) ?? .png
    }

    deinit {
        if fd >= 0 { close(fd) }
    }

    /// Reads a tile as the cache keeps it: bytes and strong ETag; nil when the bundle lacks it.
    func read(_ tile: TileID) throws -> CachedTile? {
        guard let bundle else { return nil }
        return try bundle.withSource { source in
            try source.withTile(tile) { bytes, storedID in
                // A stored id becomes the ETag header as it is: only when it is a well-formed hash
                // (a crafted bundle could hold CR/LF there: header injection), else the content's hash.
                let stored = hashedTileIDs ? storedID.flatMap { TileHash.isWellFormed($0) ? $0 : nil } : nil
                let hash = stored ?? TileValidator.etag(bytes)
                return CachedTile(bytes: bytes, etag: "\"\(hash)\"")
            }
        }
    }

    /// Whether the tileset is served from a PMTiles archive (which clients may also read whole,
    /// `GET /tiles/{id}.pmtiles`).
    var isArchive: Bool { path.hasSuffix(".pmtiles") }

    /// The scanned file opened anew (the one this tileset serves, even if replaced on disk since),
    /// or nil when it cannot be.
    func openFile() -> OpenBundleFile? {
        guard fd >= 0 else { return nil }
        let copy = open("/proc/self/fd/\(fd)", O_RDONLY | O_CLOEXEC)
        guard copy >= 0 else { return nil }
        guard let st = FileStat(fd: copy) else {
            close(copy)
            return nil
        }
        return OpenBundleFile(fd: copy, size: st.size)
    }

    /// A strong validator of the scanned file (its identity: inode, size, modification time).
    var fileETag: String {
        "\"\(String(identity.inode, radix: 16))-\(String(identity.size, radix: 16))-\(String(identity.modified, radix: 16))\""
    }

    /// Whether a zoom level is inside the tileset's range.
    func hasZoom(_ z: Int) -> Bool { (metadata.minZoom...max(metadata.minZoom, metadata.maxZoom)).contains(z) }

    /// Valid tileset ids: letters, digits, `-`, `_`, `.`, not starting with a dot, at most 128 characters.
    public static func isValidID<S: StringProtocol>(_ id: S) -> Bool { TileRequestParsing.isValidTilesetID(id) }

    /// `text` with `path` (and any other absolute path in it) replaced by the file's name.
    static func redactingPaths(_ text: String, path: String) -> String {
        let name = (path as NSString).lastPathComponent
        var out = text.replacingOccurrences(of: path, with: name)
        let pattern = #"(?<![A-Za-z0-9.])/(?:[^\s/'"`:,;()]+/)*[^\s/'"`:,;()]*"#
        if let re = try? NSRegularExpression(pattern: pattern) {
            out = re.stringByReplacingMatches(in: out, range: NSRange(out.startIndex..., in: out), withTemplate: name)
        }
        return out
    }
}
