#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A regular file's identity as `stat(2)` gives it: size, modification time in nanoseconds,
/// inode and device. A file edited in place, even to the same size, gets another identity.
public struct FileStat: Hashable, Sendable {
    public var size: Int64
    public var modified: Int64
    public var inode: UInt64
    public var device: UInt64

    /// The identity of the file at `path`; nil when it is not a readable regular file.
    public init?(path: String) {
        var s = stat()
        guard stat(path, &s) == 0 else { return nil }
        self.init(s)
    }

    /// The identity of an open file; nil when it is not a regular file.
    public init?(fd: Int32) {
        var s = stat()
        guard fstat(fd, &s) == 0 else { return nil }
        self.init(s)
    }

    private init?(_ s: stat) {
        guard (s.st_mode & S_IFMT) == S_IFREG else { return nil }
        size = Int64(s.st_size)
        #if canImport(Glibc)
        modified = Int64(s.st_mtim.tv_sec) * 1_000_000_000 + Int64(s.st_mtim.tv_nsec)
        #else
        modified = Int64(s.st_mtimespec.tv_sec) * 1_000_000_000 + Int64(s.st_mtimespec.tv_nsec)
        #endif
        inode = UInt64(s.st_ino)
        device = UInt64(s.st_dev)
    }
}
