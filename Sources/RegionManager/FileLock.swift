import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An advisory lock (flock) on a lock file, held until `unlock` or process exit (kill -9 included).
final class FileLock: Sendable {
    private let fd: Int32

    /// Takes the lock: waits for it when `wait`, else throws `busy` when another process holds it.
    init(path: String, wait: Bool, busy: @autoclosure () -> RegionManagerError) throws {
        fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw RegionManagerError.errno(path) }
        while flock(fd, wait ? LOCK_EX : LOCK_EX | LOCK_NB) != 0 {
            if errno == EINTR { continue }
            let error = errno == EWOULDBLOCK ? busy() : RegionManagerError.errno(path)
            close(fd)
            throw error
        }
    }

    func unlock() {
        flock(fd, LOCK_UN)
    }

    deinit { close(fd) }
}
