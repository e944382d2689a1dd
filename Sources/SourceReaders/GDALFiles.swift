import CGDAL
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Files as GDAL sees them: plain paths, and its virtual file systems (`/vsizip/`, `/vsitar/`,
/// `/vsigzip/`, `/vsicurl/`...), so that sources can be read out of the zip files map sheets
/// are distributed in without unpacking them.
public enum GDALFiles {
    /// The zip archives a folder argument may also be, by extension.
    public static let archiveExtensions: Set<String> = ["zip"]

    /// Whether `path` names a file inside one of GDAL's virtual file systems.
    public static func isVirtual(_ path: String) -> Bool { path.hasPrefix("/vsi") }

    /// Whether `path` is for GDAL to interpret: a virtual file system path, or a subdataset name.
    public static func isGDALName(_ path: String) -> Bool { isVirtual(path) || subdataset(path) != nil }

    /// A subdataset name, one raster of a container file (`GPKG:/maps/a.gpkg:quad`,
    /// `NETCDF:"/data/f.nc":var`, `GTIFF_DIR:2:/maps/a.tif`, `PDF:2:map.pdf`,
    /// `HDF4_EOS:EOS_GRID:"f.hdf":grid:field`), cut into the text before the file, the file, and
    /// the text after it; nil when `path` is not one (or is a file's own name). The file may
    /// start after any colon, quoted or not; unquoted, it is the longest part up to a colon that
    /// is an existing file (relative to `base` when relative; inside GDAL's virtual file systems
    /// too). Folder containers (Zarr, FileGDB) are not taken: they have no one file to stamp.
    public static func subdataset(_ path: String, base: String? = nil) -> (head: String, file: String, tail: String)? {
        guard isSubdatasetSyntax(path) else { return nil }
        func located(_ file: String) -> String {
            file.hasPrefix("/") || base == nil ? file : (base! as NSString).appendingPathComponent(file)
        }
        guard !isFile(located(path)) else { return nil }
        var start = path.index(after: path.firstIndex(of: ":")!)
        while start < path.endIndex {
            let rest = path[start...]
            if rest.hasPrefix("\"") {
                let body = rest.dropFirst()
                if let q = body.firstIndex(of: "\""), q > body.startIndex, isFile(located(String(body[..<q]))) {
                    return (String(path[..<body.startIndex]), String(body[..<q]), String(body[q...]))
                }
            } else {
                var end = rest.endIndex
                while end > rest.startIndex {
                    let file = String(rest[..<end])
                    if isFile(located(file)) { return (String(path[..<start]), file, String(rest[end...])) }
                    guard let c = rest[..<end].lastIndex(of: ":") else { break }
                    end = c
                }
            }
            guard let next = rest.firstIndex(of: ":") else { return nil }
            start = path.index(after: next)
        }
        return nil
    }

    /// Whether `path` reads as GDAL's `DRIVER:...` subdataset syntax (a driver name of two or
    /// more letters, digits and underscores, then a colon), whether or not its file exists.
    public static func isSubdatasetSyntax(_ path: String) -> Bool {
        guard let colon = path.firstIndex(of: ":"), colon < path.index(before: path.endIndex) else { return false }
        let driver = path[..<colon]
        return driver.count > 1 && driver.first!.isLetter
            && driver.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }
    }

    /// Whether `path` is an existing file (not a folder), plain or in a virtual file system.
    private static func isFile(_ path: String) -> Bool {
        guard let (_, isFolder, _) = vsiStat(path) else { return false }
        return !isFolder
    }

    /// GDAL's virtual file systems that open a local file (an archive or a compressed file).
    static let localArchivePrefixes = ["/vsizip/", "/vsitar/", "/vsigzip/", "/vsi7z/", "/vsirar/"]

    /// `path` with a relative location made relative to `base`: a plain relative path, or the
    /// archive a local virtual path opens (`/vsizip/quads.zip/a.tif` → `/vsizip/BASE/quads.zip/a.tif`).
    /// Network ones (`/vsicurl/`, `/vsis3/`) are left as they are.
    public static func resolve(_ path: String, relativeTo base: String) -> String {
        if !path.hasPrefix("/"), isSubdatasetSyntax(path),
            !FileManager.default.fileExists(atPath: (base as NSString).appendingPathComponent(path))
        {
            // A subdataset name: its container resolved when relative; left as written when the
            // container cannot be found (the loader then reports it missing under that name).
            guard let s = subdataset(path, base: base), !s.file.hasPrefix("/") else { return path }
            return s.head + (base as NSString).appendingPathComponent(s.file) + s.tail
        }
        if let prefix = localArchivePrefixes.first(where: { path.hasPrefix($0) }) {
            let rest = String(path.dropFirst(prefix.count))
            return rest.hasPrefix("/") ? path : prefix + (base as NSString).appendingPathComponent(rest)
        }
        if isVirtual(path) || path.hasPrefix("/") { return path }
        return (base as NSString).appendingPathComponent(path)
    }

    /// Size and modification time (nanoseconds) of a plain or virtual file, or nil when it does
    /// not exist or is a folder. A zip member's time is its archive's: the member's own is a DOS
    /// time in 2-second steps (or a fixed one), too coarse to tell a re-issued sheet of the same
    /// size, while any rewrite of the archive changes the archive's.
    public static func stat(_ path: String) -> (size: Int64, modifiedNanoseconds: Int64)? {
        // A subdataset changes when its container file does.
        if let s = subdataset(path) { return stat(s.file) }
        guard let (size, isFolder, modified) = vsiStat(path), !isFolder else { return nil }
        if path.hasPrefix("/vsizip/"), let archive = archivePath(path), let (_, _, archiveModified) = vsiStat(archive) {
            return (size, archiveModified)
        }
        return (size, modified)
    }

    /// The zip file a `/vsizip/` path reads from: its path up to the first component ending in `.zip`.
    static func archivePath(_ path: String) -> String? {
        let inner = String(path.dropFirst("/vsizip/".count))
        guard let r = inner.range(of: ".zip/", options: .caseInsensitive) else { return nil }
        return String(inner[..<r.lowerBound]) + ".zip"
    }

    private static func vsiStat(_ path: String) -> (size: Int64, isFolder: Bool, modified: Int64)? {
        GDALEnvironment.prepare()
        #if canImport(Glibc)
        // VSIStatBufL is struct stat64, which Swift sees only as an opaque pointer; on 64-bit
        // Linux struct stat has the same layout.
        var st = Glibc.stat()
        let status = withUnsafeMutablePointer(to: &st) { VSIStatL(path, OpaquePointer($0)) }
        guard status == 0 else { return nil }
        return (
            Int64(st.st_size), (st.st_mode & S_IFMT) == S_IFDIR,
            Int64(st.st_mtim.tv_sec) * 1_000_000_000 + Int64(st.st_mtim.tv_nsec)
        )
        #else
        return nil
        #endif
    }

    /// Reads a plain or virtual file through GDAL, 1 MiB at a time, into `consume`; a read that
    /// stops short of the size the file declares (a damaged member) is an error.
    public static func read(_ path: String, into consume: (UnsafeRawBufferPointer) -> Void) throws(SourceReaderError) {
        if let s = subdataset(path) { return try read(s.file, into: consume) }
        GDALEnvironment.prepare()
        guard let (size, _, _) = vsiStat(path), let file = VSIFOpenL(path, "rb") else {
            throw .readFailed(path: path, reason: "cannot open it for reading")
        }
        defer { _ = VSIFCloseL(file) }
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var total: Int64 = 0
        while true {
            let n = buffer.withUnsafeMutableBytes { VSIFReadL($0.baseAddress, 1, $0.count, file) }
            if n > 0 { buffer.withUnsafeBytes { consume(UnsafeRawBufferPointer(rebasing: $0[0..<n])) } }
            total += Int64(n)
            if n < buffer.count { break }
        }
        guard total == size else {
            throw .readFailed(path: path, reason: "read \(total) of its \(size) bytes (a damaged archive?)")
        }
    }

    /// The raster files in a zip archive (by `extensions`, any depth, sorted by path), as
    /// `/vsizip/` paths, leaving out hidden files and macOS's `__MACOSX/` resource copies; nil
    /// when GDAL cannot list it as an archive.
    public static func rasterMembers(ofArchive path: String, extensions: Set<String>) -> [String]? {
        GDALEnvironment.prepare()
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        let root = "/vsizip/" + absolute
        guard let list = VSIReadDirRecursive(root) else { return nil }
        defer { CSLDestroy(list) }
        var members = [String]()
        var i = 0
        while let p = list[i] {
            let name = String(cString: p)
            let parts = name.split(separator: "/")
            let hidden = parts.contains { $0.hasPrefix(".") || $0 == "__MACOSX" }
            if !hidden, extensions.contains(URL(fileURLWithPath: name).pathExtension.lowercased()) { members.append(root + "/" + name) }
            i += 1
        }
        return members.sorted()
    }
}
