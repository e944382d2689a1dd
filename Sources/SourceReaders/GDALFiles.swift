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
    /// `NETCDF:"/data/f.nc":var`, `GTIFF_DIR:2:/maps/a.tif`), cut into the text before the file,
    /// the file, and the text after it; nil when `path` is not one (or is a file's own name).
    /// Unquoted, the file is the longest part up to a colon that exists (relative to `base` when
    /// relative).
    public static func subdataset(_ path: String, base: String? = nil) -> (head: String, file: String, tail: String)? {
        guard let colon = path.firstIndex(of: ":") else { return nil }
        let own = path.hasPrefix("/") || base == nil ? path : (base! as NSString).appendingPathComponent(path)
        guard !FileManager.default.fileExists(atPath: own) else { return nil }
        let driver = path[..<colon]
        guard driver.count > 1, driver.first!.isLetter, driver.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") })
        else { return nil }
        var head = String(path[...colon])
        var rest = path[path.index(after: colon)...]
        if driver.uppercased() == "GTIFF_DIR", let c = rest.firstIndex(of: ":") {
            head += rest[...c]
            rest = rest[rest.index(after: c)...]
        }
        if rest.hasPrefix("\"") {
            let body = rest.dropFirst()
            guard let q = body.firstIndex(of: "\""), q > body.startIndex else { return nil }
            return (head + "\"", String(body[..<q]), String(body[q...]))
        }
        var end = rest.endIndex
        while end > rest.startIndex {
            let file = String(rest[..<end])
            let located = file.hasPrefix("/") || base == nil ? file : (base! as NSString).appendingPathComponent(file)
            var isDir: ObjCBool = false
            if FileManager.default.fileExists(atPath: located, isDirectory: &isDir), !isDir.boolValue {
                return (head, file, String(rest[end...]))
            }
            guard let c = rest[..<end].lastIndex(of: ":") else { return nil }
            end = c
        }
        return nil
    }

    /// GDAL's virtual file systems that open a local file (an archive or a compressed file).
    static let localArchivePrefixes = ["/vsizip/", "/vsitar/", "/vsigzip/", "/vsi7z/", "/vsirar/"]

    /// `path` with a relative location made relative to `base`: a plain relative path, or the
    /// archive a local virtual path opens (`/vsizip/quads.zip/a.tif` → `/vsizip/BASE/quads.zip/a.tif`).
    /// Network ones (`/vsicurl/`, `/vsis3/`) are left as they are.
    public static func resolve(_ path: String, relativeTo base: String) -> String {
        if !path.hasPrefix("/"), let s = subdataset(path, base: base), !s.file.hasPrefix("/") {
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
        return (Int64(st.st_size), (st.st_mode & S_IFMT) == S_IFDIR,
                Int64(st.st_mtim.tv_sec) * 1_000_000_000 + Int64(st.st_mtim.tv_nsec))
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
