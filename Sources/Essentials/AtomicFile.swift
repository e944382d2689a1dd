import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Durable file operations: write-to-temporary (created with its final mode) + fsync + rename,
/// and fsync of folders.
public enum AtomicFile {
    /// Replaces `path` with `data` atomically; the file gets `mode` (0600 by default).
    public static func write(_ data: Data, to path: String, mode: mode_t = 0o600) throws(FileSystemError) {
        let dir = (path as NSString).deletingLastPathComponent
        let temp = (dir as NSString).appendingPathComponent(".\((path as NSString).lastPathComponent).\(UUID().uuidString).tmp")
        let fd = open(temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard fd >= 0 else { throw failure(temp) }
        var ok = false
        defer {
            close(fd)
            if !ok { unlink(temp) }
        }
        try writeAll(fd: fd, data: data, path: temp)
        guard fchmod(fd, mode) == 0, fsync(fd) == 0 else { throw failure(temp) }
        guard rename(temp, path) == 0 else { throw failure(path) }
        ok = true
        syncDirectory(dir)
    }

    /// Writes all of `data` to `fd` (retrying short writes and EINTR).
    public static func writeAll(fd: Int32, data: Data, path: String) throws(FileSystemError) {
        let failed: Bool = data.withUnsafeBytes { (buf: UnsafeRawBufferPointer) in
            guard let base = buf.baseAddress else { return false }
            var offset = 0
            while offset < buf.count {
                let n = systemWrite(fd, base + offset, buf.count - offset)
                if n < 0 {
                    if errno == EINTR { continue }
                    return true
                }
                offset += n
            }
            return false
        }
        if failed { throw failure(path) }
    }

    private static func systemWrite(_ fd: Int32, _ p: UnsafeRawPointer, _ n: Int) -> Int {
        #if canImport(Glibc)
        Glibc.write(fd, p, n)
        #else
        Darwin.write(fd, p, n)
        #endif
    }

    /// Renames `from` over `to` and makes the rename durable.
    public static func move(_ from: String, to: String) throws(FileSystemError) {
        let fd = open(from, O_RDONLY | O_CLOEXEC)
        if fd >= 0 {
            fsync(fd)
            close(fd)
        }
        guard rename(from, to) == 0 else { throw failure(to) }
        syncDirectory((to as NSString).deletingLastPathComponent)
    }

    /// Makes a folder's entries (a rename, a new file) durable.
    public static func syncDirectory(_ dir: String) {
        let fd = open(dir.isEmpty ? "." : dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        fsync(fd)
        close(fd)
    }

    /// The failure `errno` describes.
    public static func failure(_ path: String) -> FileSystemError {
        .errno(path)
    }
}
