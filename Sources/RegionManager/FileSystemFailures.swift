import Essentials
import Foundation

extension RegionManagerError {
    /// A failed file operation of Essentials, as this module reports it.
    init(_ error: FileSystemError) {
        switch error {
        case let .notFound(path): self = .fileSystem(path: path, reason: "no such file")
        case let .failed(path, reason): self = .fileSystem(path: path, reason: reason)
        }
    }

    /// The failure `errno` describes, for `path`.
    static func errno(_ path: String) -> RegionManagerError { RegionManagerError(FileSystemError.errno(path)) }
}

/// Essentials' `AtomicFile` with this module's errors.
enum DurableFile {
    static func write(_ data: Data, to path: String, mode: mode_t = 0o600) throws(RegionManagerError) {
        do { try AtomicFile.write(data, to: path, mode: mode) } catch { throw RegionManagerError(error) }
    }

    static func move(_ from: String, to: String) throws(RegionManagerError) {
        do { try AtomicFile.move(from, to: to) } catch { throw RegionManagerError(error) }
    }

    static func writeAll(fd: Int32, data: Data, path: String) throws(RegionManagerError) {
        do { try AtomicFile.writeAll(fd: fd, data: data, path: path) } catch { throw RegionManagerError(error) }
    }
}
