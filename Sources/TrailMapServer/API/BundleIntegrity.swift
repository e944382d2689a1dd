import Essentials
import Foundation
import NIOPosix
import Synchronization
import TileStore

/// Which bundle files hold exactly the bytes that were published, so that a download's ETag
/// (the published SHA-256) is never attached to other content.
///
/// A file is identified by size, modification time (ns), inode and device. The first download
/// of a file identity hashes it once, on NIO's blocking thread pool (concurrent downloads wait
/// for the same hash); the verdict is kept until the identity changes. A bundle edited in place,
/// even to the same size, therefore gets a new identity, a new hash and (unless its bytes are
/// the published ones) a 503 until it is published again; a copy or a `touch` costs one hash.
final class BundleIntegrity: Sendable {
    struct Identity: Hashable, Sendable {
        var size: Int64
        var modified: Int64
        var inode: UInt64
        var device: UInt64
    }

    private struct Key: Hashable {
        var path: String
        var identity: Identity
        var sha256: String
    }

    private let verdicts = Mutex<[Key: Task<Bool, Never>]>([:])

    /// The file's identity now, nil when it cannot be read.
    static func identity(path: String) -> Identity? {
        var s = stat()
        guard stat(path, &s) == 0, (s.st_mode & S_IFMT) == S_IFREG else { return nil }
        return Identity(size: Int64(s.st_size), modified: Int64(s.st_mtim.tv_sec) * 1_000_000_000 + Int64(s.st_mtim.tv_nsec),
                        inode: UInt64(s.st_ino), device: UInt64(s.st_dev))
    }

    /// Whether the file at `path` is `size` bytes with SHA-256 `sha256` (hashing at most once
    /// per identity).
    func holdsPublished(path: String, size: Int64, sha256: String) async -> Bool {
        guard let identity = Self.identity(path: path), identity.size == size else { return false }
        let key = Key(path: path, identity: identity, sha256: sha256)
        let task = verdicts.withLock { map -> Task<Bool, Never> in
            if let t = map[key] { return t }
            // One verdict per path: an older identity's is dropped.
            map = map.filter { $0.key.path != path }
            let t = Task<Bool, Never> {
                let digest = try? await NIOThreadPool.singleton.runIfActive { try FileSHA256.digest(path: path) }
                // The file must not have changed while it was read.
                return digest?.hex == sha256 && digest?.size == size && Self.identity(path: path) == identity
            }
            map[key] = t
            return t
        }
        return await task.value
    }
}
