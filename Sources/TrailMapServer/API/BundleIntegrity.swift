import Essentials
import Foundation
import NIOCore
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
    /// A file's size, modification time (ns), inode and device.
    typealias Identity = FileStat

    private struct Key: Hashable {
        var path: String
        var identity: Identity
        var sha256: String
    }

    private struct State {
        var verdicts: [Key: Task<Bool, Never>] = [:]
        /// Paths primed, oldest first: at most `maxPrimed` are kept (most quotes are never bought).
        var primed: [String] = []
    }

    private let state = Mutex(State())
    /// Primed verdicts kept; older ones are dropped (their file is then hashed if downloaded).
    static let maxPrimed = 1024

    /// The identity of the file at `path` now, nil when it is not a readable regular file.
    static func identity(path: String) -> Identity? { FileStat(path: path) }

    /// The identity of an open file.
    static func identity(fd: Int32) -> Identity? { FileStat(fd: fd) }

    /// Opens the file at `path` when it holds the published bytes (`size`, SHA-256 `sha256`),
    /// hashing at most once per identity. The check is made on the open file, and the download
    /// is read from it: a file replaced after the check is never sent under the old ETag.
    func openPublished(path: String, size: Int64, sha256: String) async -> OpenBundleFile? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        let file = OpenBundleFile(fd: fd, size: size)
        guard let identity = Self.identity(fd: fd), identity.size == size,
            await verdict(path: path, identity: identity, sha256: sha256)
        else { return nil }
        return file
    }

    /// Records that the file identity `identity` at `path` holds SHA-256 `sha256`, hashed by whoever
    /// wrote it (an area quote's cut): its first download needs no hash. Only the identity's
    /// verdict is kept, so a file changed afterwards is hashed as any other.
    func prime(path: String, identity: Identity, sha256: String) {
        let key = Key(path: path, identity: identity, sha256: sha256)
        state.withLock { s in
            s.verdicts = s.verdicts.filter { $0.key.path != path }
            s.verdicts[key] = Task { true }
            s.primed.append(path)
            if s.primed.count > Self.maxPrimed {
                let oldest = s.primed.removeFirst()
                if !s.primed.contains(oldest) { s.verdicts = s.verdicts.filter { $0.key.path != oldest } }
            }
        }
    }

    /// Whether the file identity `identity` (found at `path`) holds SHA-256 `sha256`.
    private func verdict(path: String, identity: Identity, sha256: String) async -> Bool {
        let key = Key(path: path, identity: identity, sha256: sha256)
        let task = state.withLock { s -> Task<Bool, Never> in
            if let t = s.verdicts[key] { return t }
            // One verdict per path: an older identity's is dropped.
            s.verdicts = s.verdicts.filter { $0.key.path != path }
            let t = Task<Bool, Never> {
                let digest = try? await NIOThreadPool.singleton.runIfActive { try FileSHA256.digest(path: path) }
                // The path must still name the same file after it was read.
                return digest?.hex == sha256 && digest?.size == identity.size && Self.identity(path: path) == identity
            }
            s.verdicts[key] = t
            return t
        }
        return await task.value
    }
}

/// A bundle file opened for a download, closed when the last reference goes (the response body
/// may never be written, e.g. when the client leaves first).
final class OpenBundleFile: Sendable {
    let fd: Int32
    let size: Int64

    init(fd: Int32, size: Int64) {
        self.fd = fd
        self.size = size
    }

    deinit { close(fd) }

    /// Reads `range` on NIO's blocking pool, 128 KiB at a time, into `write`.
    func stream(
        _ range: ClosedRange<Int64>, allocator: ByteBufferAllocator = ByteBufferAllocator(),
        to write: (ByteBuffer) async throws -> Void
    ) async throws {
        var offset = range.lowerBound
        while offset <= range.upperBound {
            let count = Int(min(Int64(128 * 1024), range.upperBound - offset + 1))
            let chunk = try await NIOThreadPool.singleton.runIfActive { [fd, offset] () throws -> ByteBuffer in
                var buffer = allocator.buffer(capacity: count)
                let n = buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: count) { raw in
                    pread(fd, raw.baseAddress, count, off_t(offset))
                }
                guard n > 0 else { throw OpenBundleFileError.shortRead(offset: offset) }
                return buffer
            }
            offset += Int64(chunk.readableBytes)
            try await write(chunk)
        }
    }
}

enum OpenBundleFileError: Error {
    /// The file ended (or failed) before the range did.
    case shortRead(offset: Int64)
}
