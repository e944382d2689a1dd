import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An advisory lock (flock) on a lock file, held until `unlock`/`release` or process exit (kill -9
/// included). `release` deletes the lock file as it lets go, so finished work leaves no lock file
/// behind; a process that was waiting on the deleted file notices (the path no longer names the
/// file it locked) and locks the path afresh, so two processes never both hold the lock.
public final class FileLock: Sendable {
    private let fd: Int32
    private let path: String

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
        self.path = path
    }

    private static func acquire(_ path: String, wait: Bool) throws(Failure) -> Int32 {
        while true {
            let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
            guard fd >= 0 else { throw .system(.errno(path)) }
            while flock(fd, wait ? LOCK_EX : LOCK_EX | LOCK_NB) != 0 {
                if errno == EINTR { continue }
                let error: Failure = errno == EWOULDBLOCK ? .busy : .system(.errno(path))
                close(fd)
                throw error
            }
            // The holder before may have deleted the file (`release`) while this one waited on it:
            // then the lock is on a file nobody else will open, and the path is locked afresh.
            if names(path, fd) { return fd }
            close(fd)
        }
    }

    /// Whether `path` still names the file open on `fd`.
    private static func names(_ path: String, _ fd: Int32) -> Bool {
        var open = stat(), named = stat()
        guard fstat(fd, &open) == 0, stat(path, &named) == 0 else { return false }
        return open.st_dev == named.st_dev && open.st_ino == named.st_ino
    }

    /// Lets go, keeping the lock file.
    public func unlock() {
        flock(fd, LOCK_UN)
    }

    /// Deletes the lock file (while still holding it), then lets go.
    public func release() {
        if Self.names(path, fd) { unlink(path) }
        flock(fd, LOCK_UN)
    }

    deinit { close(fd) }
}
