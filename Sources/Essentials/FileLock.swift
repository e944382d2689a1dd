import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An advisory lock (flock) on a lock file, held until `unlock` or process exit (kill -9 included).
public final class FileLock: Sendable {
    private let fd: Int32

    /// Why a lock was not taken.
    public enum Failure: Error, Equatable {
        /// Another process holds it (only without `wait`).
        case busy
        /// The lock file could not be opened or locked.
        case system(FileSystemError)
    }

    /// Takes the lock on `path` (created when missing): waits for it when `wait`, else fails with
    /// `busy` when another process holds it.
    public init(path: String, wait: Bool) throws(Failure) {
        // The descriptor is opened and locked before the object exists: a failure closes it once
        // (a class whose init throws once fully initialized would close it again in deinit).
        fd = try Self.acquire(path, wait: wait)
    }

    private static func acquire(_ path: String, wait: Bool) throws(Failure) -> Int32 {
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw .system(.errno(path)) }
        while flock(fd, wait ? LOCK_EX : LOCK_EX | LOCK_NB) != 0 {
            if errno == EINTR { continue }
            let error: Failure = errno == EWOULDBLOCK ? .busy : .system(.errno(path))
            close(fd)
            throw error
        }
        return fd
    }

    public func unlock() {
        flock(fd, LOCK_UN)
    }

    deinit { close(fd) }
}
