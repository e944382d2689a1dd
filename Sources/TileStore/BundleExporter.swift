import Foundation
import TileGeometry

/// What an export wrote.
public struct ExportStats: Sendable, Equatable {
    /// Tile files written.
    public var tiles = 0
    /// Bytes of all tile files.
    public var bytes = 0
    /// Tile files per zoom level.
    public var tilesPerZoom: [Int: Int] = [:]
    /// Rows of the bundle with impossible addresses (skipped, not written).
    public var invalidRows = 0
    /// The extension of the tile files (see `BundleExporter.fileExtension(format:)`).
    public var fileExtension = "png"
}

/// How far an export has got.
public struct ExportProgress: Sendable, Equatable {
    public var done: Int
    public var total: Int
    public var bytes: Int
}

/// Writes a bundle's tiles as plain files, `DIR/{z}/{x}/{y}.EXT` (XYZ rows, y from the north; EXT
/// from the bundle's format: `png`, `webp` or `jpg`), plus `DIR/metadata.json` with the bundle's
/// metadata rows, for static file servers. The folder mirrors the server's `/tiles/{tileset}/`.
///
/// Every file is written under a temporary name in `DIR` and renamed into place, so a process
/// killed at any moment never leaves a truncated tile; `metadata.json` is written last and marks
/// a complete export.
public enum BundleExporter {
    /// The temporary file name inside the output folder, `.trailmap-export.PID.tmp`.
    static func temporaryName(pid: Int32) -> String { ".trailmap-export.\(pid).tmp" }

    /// Exports `source` (either layout) into `dir`, creating it (and its parents) as needed.
    /// A `dir` that exists and is not empty is refused unless `force`, in which case files of the
    /// same names are replaced and other files are left alone. `progress` is called after each tile.
    public static func export(
        from source: String, to dir: String, force: Bool = false,
        progress: (ExportProgress) -> Void = { _ in }
    ) throws(TileStoreError) -> ExportStats {
        var dir = dir
        while dir.count > 1, dir.hasSuffix("/") { dir.removeLast() }
        let reader = try BundleReader(path: source)
        let pairs = try reader.metadataPairs()
        let total = try reader.zoomLevels().reduce(0) { $0 + $1.tiles }
        try prepare(dir: dir, force: force)
        // metadata.json marks a complete export: an old one goes first.
        let metadataPath = (dir as NSString).appendingPathComponent("metadata.json")
        if unlink(metadataPath) != 0, errno != ENOENT {
            throw .invalidArgument("\(metadataPath): cannot replace: \(String(cString: strerror(errno)))")
        }

        var stats = ExportStats()
        stats.fileExtension = fileExtension(format: pairs["format"])
        let temporary = (dir as NSString).appendingPathComponent(temporaryName(pid: getpid()))
        defer { unlink(temporary) }
        var madeFolders = Set<String>()
        var failure: TileStoreError?
        try reader.forEachTile(invalid: { _, _, _ in stats.invalidRows += 1 }) { tile, data in
            do throws(TileStoreError) {
                let folder = "\(dir)/\(tile.z)/\(tile.x)"
                if !madeFolders.contains(folder) {
                    try makeFolder((dir as NSString).appendingPathComponent("\(tile.z)"))
                    try makeFolder(folder)
                    madeFolders.insert(folder)
                }
                try write(data, to: "\(folder)/\(tile.y).\(stats.fileExtension)", via: temporary)
            } catch {
                failure = error
                return false
            }
            stats.tiles += 1
            stats.bytes += data.count
            stats.tilesPerZoom[tile.z, default: 0] += 1
            progress(ExportProgress(done: stats.tiles, total: total, bytes: stats.bytes))
            return true
        }
        if let failure { throw failure }

        let json: Data
        do {
            json = try JSONSerialization.data(withJSONObject: pairs, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
        } catch {
            throw .invalidArgument("\(source): cannot encode the metadata as JSON: \(error)")
        }
        try write(json + Data("\n".utf8), to: metadataPath, via: temporary)
        return stats
    }

    /// The extension of every tile file of a bundle whose metadata `format` is `format`: `png`,
    /// `webp`, `jpg` (for `jpg` and `jpeg`, any case); another plain word of at most 16 lower-case
    /// letters and digits as it is (`pbf`); `png` when there is none (MBTiles' default) or it is
    /// not such a word (never a path: `../x` or `image/png` give `png`).
    ///
    /// A jpg bundle's PNG tiles (those with transparency, at the data's edges) are written as
    /// `.jpg` files too, PNG bytes inside, exactly as the server answers them at `.jpg` URLs: one
    /// URL template, `{z}/{x}/{y}.jpg`, reaches every tile, which a `.png` per edge tile would
    /// break (map clients ask for one extension). Browsers and Leaflet decode a tile by its bytes,
    /// not by its name or `Content-Type`. (mbutil's export also gives all tiles one extension.)
    public static func fileExtension(format: String?) -> String {
        guard let format = format?.lowercased(), !format.isEmpty, format.utf8.count <= 16,
            format.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x7A).contains($0) })
        else { return "png" }
        return format == "jpeg" ? "jpg" : format
    }

    /// Creates `dir` if needed; refuses a file, or a non-empty folder unless `force`.
    /// Removes temporaries left by dead exports first.
    static func prepare(dir: String, force: Bool) throws(TileStoreError) {
        let fm = FileManager.default
        var isDir: ObjCBool = false
        if fm.fileExists(atPath: dir, isDirectory: &isDir) {
            guard isDir.boolValue else { throw .invalidArgument("\(dir): exists and is not a folder") }
            removeStaleTemporaries(in: dir)
            let names: [String]
            do { names = try fm.contentsOfDirectory(atPath: dir) } catch {
                throw .invalidArgument("\(dir): cannot list the folder: \(error.localizedDescription)")
            }
            if !names.isEmpty, !force {
                throw .folderNotEmpty(path: dir, entries: names.count)
            }
        } else {
            try makeFolders(dir)
        }
        guard access(dir, W_OK) == 0 else { throw .invalidArgument("\(dir): folder is not writable") }
    }

    /// Deletes `.trailmap-export.PID.tmp` files in `dir` whose process is gone.
    static func removeStaleTemporaries(in dir: String) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: dir) else { return }
        let prefix = ".trailmap-export.", suffix = ".tmp"
        for name in names where name.hasPrefix(prefix) && name.hasSuffix(suffix) {
            guard let pid = Int32(name.dropFirst(prefix.count).dropLast(suffix.count)) else { continue }
            if pid != getpid(), kill(pid, 0) == -1, errno == ESRCH {
                unlink((dir as NSString).appendingPathComponent(name))
            }
        }
    }

    /// `mkdir -p`.
    private static func makeFolders(_ path: String) throws(TileStoreError) {
        let parent = (path as NSString).deletingLastPathComponent
        if !parent.isEmpty, parent != path, !FileManager.default.fileExists(atPath: parent) { try makeFolders(parent) }
        try makeFolder(path)
    }

    private static func makeFolder(_ path: String) throws(TileStoreError) {
        if mkdir(path, 0o755) == 0 { return }
        let code = errno
        var isDir: ObjCBool = false
        if code == EEXIST, FileManager.default.fileExists(atPath: path, isDirectory: &isDir), isDir.boolValue { return }
        throw .invalidArgument(
            "\(path): cannot create the folder: \(code == EEXIST ? "a file of that name exists" : String(cString: strerror(code)))")
    }

    /// Writes `data` to `temporary` and renames it to `path`.
    private static func write(_ data: Data, to path: String, via temporary: String) throws(TileStoreError) {
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw .invalidArgument("\(temporary): cannot create: \(String(cString: strerror(errno)))") }
        var written = 0
        let code: Int32 = data.withUnsafeBytes { buffer in
            guard let base = buffer.baseAddress else { return 0 }
            while written < buffer.count {
                let n = posixWrite(fd, base + written, buffer.count - written)
                if n < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                written += n
            }
            return 0
        }
        if code != 0 {
            close(fd)
            unlink(temporary)
            throw .invalidArgument("\(path): cannot write: \(String(cString: strerror(code)))")
        }
        guard close(fd) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw .invalidArgument("\(path): cannot write: \(reason)")
        }
        guard rename(temporary, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw .invalidArgument("\(path): cannot move the written file into place: \(reason)")
        }
    }
}

/// The C `write`, which `BundleExporter.write` hides inside the type.
private func posixWrite(_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int { write(fd, buffer, count) }
