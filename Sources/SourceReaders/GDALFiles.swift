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

    /// Size and modification time (nanoseconds) of a plain or virtual file, or nil when it does
    /// not exist or is a folder.
    public static func stat(_ path: String) -> (size: Int64, modifiedNanoseconds: Int64)? {
        GDALEnvironment.prepare()
        // VSIStatBufL is struct stat64, which Swift sees only as an opaque pointer; on 64-bit
        // Linux struct stat has the same layout.
        var st = Glibc.stat()
        let status = withUnsafeMutablePointer(to: &st) { VSIStatL(path, OpaquePointer($0)) }
        guard status == 0, (st.st_mode & S_IFMT) != S_IFDIR else { return nil }
        return (Int64(st.st_size), Int64(st.st_mtim.tv_sec) * 1_000_000_000 + Int64(st.st_mtim.tv_nsec))
    }

    /// Reads a plain or virtual file through GDAL, 1 MiB at a time, into `consume`.
    public static func read(_ path: String, into consume: (UnsafeRawBufferPointer) -> Void) throws(SourceReaderError) {
        GDALEnvironment.prepare()
        guard let file = VSIFOpenL(path, "rb") else { throw .cannotOpen(path: path, reason: "cannot open for reading") }
        defer { _ = VSIFCloseL(file) }
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let n = buffer.withUnsafeMutableBytes { VSIFReadL($0.baseAddress, 1, $0.count, file) }
            if n > 0 { buffer.withUnsafeBytes { consume(UnsafeRawBufferPointer(rebasing: $0[0..<n])) } }
            if n < buffer.count { break }
        }
    }

    /// The raster files in a zip archive (by `extensions`, any depth, sorted by path), as
    /// `/vsizip/` paths; nil when GDAL cannot list it as an archive.
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
            if extensions.contains(URL(fileURLWithPath: name).pathExtension.lowercased()) { members.append(root + "/" + name) }
            i += 1
        }
        return members.sorted()
    }
}
